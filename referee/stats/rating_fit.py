"""The rating model's fit: Newton's method on counted results, with the Hessian sparse where
that pays, and the factorisation it ends with kept for the intervals.

The parameters are theta = (ratings r, advantages a per kind, draw margins d per kind), all in
Elo. A cell (f, s, k) has x = r_f - r_s + a_k (+ a fixed offset, used to place whole groups)
and the probabilities of `rating_terms` (BayesElo's model). Minus its log-likelihood is convex in
(x, d) (the logistic density is log-concave, so is the mass it puts between x - d and x + d),
hence in theta: Newton's steps, shortened until they go down, reach the minimum from anywhere.
Which parameters are fitted (`free`) and which carry a normal prior (`prior`: a precision per
parameter, centred on 0) is the caller's choice (`referee.stats.rating`).

The Hessian over the ratings has one entry per pair that met. Up to `_DIRECT` free parameters
each step is solved by factorising it; above, by preconditioned conjugate gradients on it as a
sparse matrix (`fit`). The factorisation the intervals read is made once, at the maximum: dense
(LAPACK's Cholesky: 3,000 players take a fraction of a second) up to `DENSE_LIMIT` parameters,
sparse (SuperLU) above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from referee.stats.rating_input import Cells, Mask
from referee.stats.rating_terms import SCALE, CellTerms, Floats, Ints, cell_terms

DENSE_LIMIT = 4096  # fitted parameters: a dense Hessian of 128 MiB at most
_MAX_STEPS = 200
# The Newton decrement g' H^-1 g at which the fit stops: about the squared distance to the
# maximum times the Hessian (in Elo^-2, S^2 = 3.3e-5 per game), so a millionth of an Elo.
_DECREMENT = 1e-18
_STALLED = 1e-10  # a decrement below which a step that does not shrink it ends the fit
_DIRECT = 400  # free parameters up to which each Newton step is solved by a factorisation


@dataclass(frozen=True)
class Setup:
    """One fit: its cells, its sizes, which parameters move, their priors, the cells' offsets."""

    cells: Cells
    players: int
    kinds: int
    free: Mask  # per parameter (players, then kinds' advantages, then their margins)
    prior: Floats  # per parameter: the prior's precision in Elo^-2, 0 for none
    offset: Floats | None = None  # per cell, Elo, added to x

    @property
    def size(self) -> int:
        return self.players + 2 * self.kinds

    @cached_property
    def pattern(self) -> _Pattern:
        """The sparse Hessian's layout, the same at every step of a fit."""
        return _pattern(self)


class Factor:
    """A factorised symmetric positive definite matrix (dense Cholesky, or sparse LU)."""

    def __init__(self, matrix: Floats | sp.csc_matrix) -> None:
        self.size = matrix.shape[0]
        self._dense: tuple[Floats, bool] | None = None
        self._sparse: spla.SuperLU | None = None
        self._inverse: Floats | None = None
        if isinstance(matrix, np.ndarray):
            if self.size == 0:  # nothing to fit: a 1 x 1 stand-in keeps LAPACK quiet
                matrix = np.eye(1)
            try:
                self._dense = la.cho_factor(matrix, check_finite=False)
            except la.LinAlgError:
                # Numerically semi-definite (a parameter the games barely move): a tiny ridge.
                ridge = 1e-12 * max(1.0, float(np.abs(np.diag(matrix)).max()))
                self._dense = la.cho_factor(matrix + ridge * np.eye(self.size), check_finite=False)
        else:
            self._sparse = spla.splu(matrix.tocsc())

    @property
    def dense(self) -> bool:
        return self._dense is not None

    def solve(self, rhs: Floats) -> Floats:
        if self.size == 0:
            return np.zeros_like(rhs, dtype=np.float64)
        if self._dense is not None:
            found: Floats = la.cho_solve(self._dense, rhs, check_finite=False)
            return found
        assert self._sparse is not None
        solved: Floats = self._sparse.solve(np.asarray(rhs, dtype=np.float64))
        return solved

    def inverse(self) -> Floats:
        """The whole inverse (dense factors only), from the Cholesky factor by LAPACK's potri:
        a third of the work of solving for the identity."""
        if self._inverse is None and self.size == 0:
            self._inverse = np.zeros((0, 0))
        if self._inverse is None:
            assert self._dense is not None
            factor, lower = self._dense
            found, info = la.lapack.dpotri(factor, lower=lower)
            if info != 0:
                found = self.solve(np.eye(self.size))
            else:  # potri fills one triangle
                found = (
                    np.tril(found) + np.tril(found, -1).T
                    if lower
                    else (np.triu(found) + np.triu(found, 1).T)
                )
            self._inverse = np.asarray(found, dtype=np.float64)
        return self._inverse


_NO_FACTOR = Factor(np.eye(1))  # stands for a factor not asked for


@dataclass(frozen=True)
class Solution:
    theta: Floats  # every parameter, fixed ones included
    log_likelihood: float  # of the cells, the prior left out
    converged: bool
    steps: int
    factor: Factor  # of the Hessian over the free parameters, at theta


@dataclass(frozen=True)
class _Point:
    theta: Floats
    value: float  # minus the log posterior
    log_likelihood: float
    terms: CellTerms


def _evaluate(setup: Setup, theta: Floats) -> _Point:
    c, n, k = setup.cells, setup.players, setup.kinds
    x = theta[c.first] - theta[c.second] + theta[n + c.kind]
    if setup.offset is not None:
        x = x + setup.offset
    terms = cell_terms(SCALE * x, SCALE * theta[n + k + c.kind], c.counts)
    value = -terms.log_l + 0.5 * float(setup.prior @ (theta * theta))
    if not math.isfinite(value):
        value = math.inf
    return _Point(theta, value, terms.log_l, terms)


def _gradient(setup: Setup, p: _Point) -> Floats:
    c, n, k = setup.cells, setup.players, setup.kinds
    gu, gd = SCALE * p.terms.du, SCALE * p.terms.dd
    grad = np.concatenate(
        [
            np.bincount(c.first, gu, n) - np.bincount(c.second, gu, n),
            np.bincount(c.kind, gu, k),
            np.bincount(c.kind, gd, k),
        ]
    )
    found: Floats = setup.prior * p.theta - grad
    return found


def hessian(setup: Setup, p: _Point, sparse: bool = False) -> Floats | sp.csc_matrix:
    """The Hessian of minus the log posterior over the free parameters: dense up to
    `DENSE_LIMIT` of them unless `sparse`."""
    c, n, k = setup.cells, setup.players, setup.kinds
    s2 = SCALE * SCALE
    huu, hud, hdd = -s2 * p.terms.duu, -s2 * p.terms.dud, -s2 * p.terms.ddd
    free = np.flatnonzero(setup.free)
    # The kinds' rows: ratings x (advantages, margins), and the kinds' own block.
    cross = np.concatenate(
        [
            (np.bincount(c.first * k + c.kind, huu, n * k)
             - np.bincount(c.second * k + c.kind, huu, n * k)).reshape(n, k),
            (np.bincount(c.first * k + c.kind, hud, n * k)
             - np.bincount(c.second * k + c.kind, hud, n * k)).reshape(n, k),
        ],
        axis=1,
    )  # fmt: skip
    kinds_block = np.zeros((2 * k, 2 * k))
    diagonal_uu, diagonal_ud = np.bincount(c.kind, huu, k), np.bincount(c.kind, hud, k)
    kinds_block[np.arange(k), np.arange(k)] = diagonal_uu
    kinds_block[np.arange(k), k + np.arange(k)] = diagonal_ud
    kinds_block[k + np.arange(k), np.arange(k)] = diagonal_ud
    kinds_block[k + np.arange(k), k + np.arange(k)] = np.bincount(c.kind, hdd, k)
    own = np.bincount(c.first, huu, n) + np.bincount(c.second, huu, n)
    if len(free) <= DENSE_LIMIT and not sparse:
        full = np.zeros((setup.size, setup.size))
        pairs = np.bincount(c.first * n + c.second, huu, n * n).reshape(n, n)
        full[:n, :n] = -(pairs + pairs.T)
        full[np.arange(n), np.arange(n)] += own
        full[:n, n:] = cross
        full[n:, :n] = cross.T
        full[n:, n:] = kinds_block
        full[np.arange(setup.size), np.arange(setup.size)] += setup.prior
        dense: Floats = full[np.ix_(free, free)]
        return dense
    kr, kc = np.indices(cross.shape).reshape(2, -1)  # every entry: the layout never changes
    br, bc = np.indices(kinds_block.shape).reshape(2, -1)
    values = np.concatenate(
        [-huu, -huu, own, cross[kr, kc], cross[kr, kc], kinds_block[br, bc], setup.prior]
    )
    return setup.pattern.matrix(values)


@dataclass(frozen=True)
class _Pattern:
    """Where each term of the sparse Hessian goes in its CSR data, found once per fit: a
    Newton step then only adds the terms up (no sorting of a million entries each time)."""

    slot: Ints  # per term: its place in `data`, -1 for a fixed parameter's
    indptr: Ints
    indices: Ints
    size: int

    def matrix(self, values: Floats) -> sp.csc_matrix:
        kept = self.slot >= 0
        data = np.bincount(self.slot[kept], values[kept], len(self.indices))
        # The matrix is symmetric: its CSR arrays read as CSC are the same matrix.
        found: sp.csc_matrix = sp.csc_matrix(
            (data, self.indices, self.indptr), shape=(self.size, self.size)
        )
        return found


def _pattern(setup: Setup) -> _Pattern:
    c, n, k = setup.cells, setup.players, setup.kinds
    kr, kc = np.indices((n, 2 * k)).reshape(2, -1)
    br, bc = np.indices((2 * k, 2 * k)).reshape(2, -1)
    free = np.flatnonzero(setup.free)
    where = np.full(setup.size, -1, dtype=np.int64)
    where[free] = np.arange(len(free))
    kinds_at = np.arange(n, setup.size)
    every = np.arange(setup.size)
    rows = np.concatenate([c.first, c.second, np.arange(n), kr, kinds_at[kc], kinds_at[br], every])
    cols = np.concatenate([c.second, c.first, np.arange(n), kinds_at[kc], kr, kinds_at[bc], every])
    rows, cols = where[rows], where[cols]
    kept = (rows >= 0) & (cols >= 0)
    size = len(free)
    keys, slots = np.unique(rows[kept] * size + cols[kept], return_inverse=True)
    slot = np.full(len(rows), -1, dtype=np.int64)
    slot[kept] = slots
    indptr = np.searchsorted(keys // size, np.arange(size + 1)).astype(np.int64)
    return _Pattern(slot, indptr, (keys % size).astype(np.int64), size)


def fit(setup: Setup, start: Floats, factorise: bool = True) -> Solution:
    """Minimise minus the log posterior from `start` (fixed parameters keep their values).

    Small fits take exact Newton steps (a factorisation each); above `_DIRECT` free parameters
    the steps are solved by conjugate gradients on the sparse Hessian with a Jacobi
    preconditioner, to a tolerance that tightens as the gradient vanishes (truncated Newton:
    no O(n^3) work per step), and the Hessian is factorised once, at the end, for the
    intervals (`factorise`)."""
    free = np.flatnonzero(setup.free)
    point = _evaluate(setup, np.asarray(start, dtype=np.float64).copy())
    margins = np.arange(setup.players + setup.kinds, setup.size)
    at_margin = np.isin(free, margins)
    direct = len(free) <= _DIRECT
    converged = False
    steps = 0
    previous = math.inf
    while steps < _MAX_STEPS:
        steps += 1
        grad = _gradient(setup, point)[free]
        step = _newton_step(setup, point, grad, direct)
        decrement = float(-grad @ step)
        # Newton squares the decrement each step near the maximum; once it stops falling, the
        # gradient's rounding (a sum over every cell) is all that is left.
        stalled = 0 < decrement < _STALLED and decrement > previous / 4
        if decrement < _DECREMENT or stalled or float(np.abs(step).max(initial=0.0)) < 1e-9:
            converged = True
            break
        previous = decrement
        if decrement <= 0:  # an inexact step that does not go down: the gradient's way
            step = -grad / np.maximum(np.abs(grad).max(), 1.0)
            decrement = float(-grad @ step)
        # Margins stay positive: at most halfway to 0 in one step.
        shrinking = at_margin & (step < 0)
        longest = 1.0
        if shrinking.any():
            room = point.theta[free[shrinking]] / -step[shrinking]
            longest = min(1.0, 0.5 * float(room.min()))
        moved = _line_search(setup, point, free, step, longest, decrement)
        if moved is point:  # no shorter step goes down: as close as floating point gets
            converged = decrement < 1e-6
            break
        point = moved
    factor = Factor(hessian(setup, point)) if factorise else _NO_FACTOR
    return Solution(point.theta, point.log_likelihood, converged, steps, factor)


def _newton_step(setup: Setup, point: _Point, grad: Floats, direct: bool) -> Floats:
    if direct:
        return -Factor(hessian(setup, point)).solve(grad)
    matrix = hessian(setup, point, sparse=True)
    diagonal = matrix.diagonal()
    scale = 1.0 / np.where(diagonal > 0, diagonal, 1.0)
    preconditioner = spla.LinearOperator(matrix.shape, matvec=lambda v: scale * v)
    norm = float(np.linalg.norm(grad))
    tolerance = min(0.5, math.sqrt(norm)) * 1e-2
    step, _ = spla.cg(matrix, -grad, rtol=tolerance, atol=0.0, M=preconditioner, maxiter=2000)
    found: Floats = np.asarray(step, dtype=np.float64)
    return found


def _line_search(
    setup: Setup, point: _Point, free: Ints, step: Floats, longest: float, decrement: float
) -> _Point:
    t = longest
    for _ in range(60):
        theta = point.theta.copy()
        theta[free] += t * step
        trial = _evaluate(setup, theta)
        if trial.value <= point.value - 1e-4 * t * decrement:
            return trial
        t /= 2
    return point
