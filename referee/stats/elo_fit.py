"""One Elo fit over many games: the Bradley-Terry model with draws and a first-move advantage,
as BayesElo writes it, fitted by maximum a posteriori with a normal prior on every rating.

Pure numbers: games in as integer arrays, ratings out; nothing here knows of tournaments,
records or leagues (`referee.league.rating` hands it the league's games).

A game is played by a first mover f and a second mover s, in a kind of game k (each game of
the league: Alak, Lielow...; its first-move advantage and how often it is drawn are its own).
With x = r_f - r_s + a_k on the Elo scale and F(z) = 1 / (1 + 10^(-z/400)):

    first mover wins: F(x - d_k)     second mover wins: F(-x - d_k)     draw: the rest

where a_k is kind k's first-move advantage and d_k >= 0 its draw margin ("drawelo"): the wider
it is, the more games are drawn. A normal prior of standard deviation `prior_sd` Elo on every
rating, advantage and draw margin keeps them finite when the maximum likelihood has none (a
bot that lost every game, a game whose every game was drawn) and makes the ratings of each
group of bots that played each other average 0; with many games it hardly moves them. The
maximum is found by scipy's trust-region Newton method (`trust-exact`) on the exact gradient
and Hessian; games are counted per (first, second, kind) first, so a fit costs as much for a
hundred thousand games as for the pairs they were played in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize
from scipy.special import expit, log_expit

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

SCALE = math.log(10) / 400  # natural units per Elo point
DEFAULT_PRIOR_SD = 500.0  # Elo
MIN_DRAW_ELO, MAX_DRAW_ELO = 1e-3, 4000.0
FIRST_WINS, DRAW, SECOND_WINS = 0, 1, 2


@dataclass(frozen=True)
class Games:
    """Games as arrays of one entry per game. `outcome` is FIRST_WINS, DRAW or SECOND_WINS."""

    first: Ints
    second: Ints
    kind: Ints
    outcome: Ints
    players: int
    kinds: int

    @classmethod
    def of(cls, rows: list[tuple[int, int, int, int]], players: int, kinds: int) -> Games:
        """From (first, second, kind, outcome) tuples."""
        table = np.asarray(rows, dtype=np.int64).reshape(-1, 4)
        return cls(table[:, 0], table[:, 1], table[:, 2], table[:, 3], players, kinds)

    def __len__(self) -> int:
        return len(self.outcome)


@dataclass(frozen=True)
class Tally:
    """The games counted per distinct (first, second, kind): what the likelihood reads."""

    first: Ints
    second: Ints
    kind: Ints
    counts: Floats  # shape (cells, 3): first mover's wins, draws, second mover's wins
    cell_of_game: Ints  # each game's cell, to recount a resample (the bootstrap)


def tally(games: Games) -> Tally:
    key = (games.first * games.players + games.second) * games.kinds + games.kind
    cells, cell_of_game = np.unique(key, return_inverse=True)
    counts = np.bincount(cell_of_game * 3 + games.outcome, minlength=3 * len(cells))
    kind = cells % games.kinds
    pair = cells // games.kinds
    return Tally(
        pair // games.players,
        pair % games.players,
        kind,
        counts.reshape(-1, 3).astype(np.float64),
        cell_of_game.astype(np.int64),
    )


@dataclass(frozen=True)
class Fit:
    """A fitted model on the Elo scale."""

    ratings: Floats  # per player; 0 for a player without games
    advantage: Floats  # per kind: the first mover's advantage
    draw_elo: Floats  # per kind: the draw margin
    log_likelihood: float  # of the games at the fitted parameters (the prior left out)
    converged: bool
    iterations: int

    def vector(self) -> Floats:
        return np.concatenate([self.ratings, self.advantage, self.draw_elo])


def _log_draw(u: Floats, delta: Floats) -> Floats:
    """log(F(u + delta) - F(u - delta)) in natural units, without cancellation for large |u|."""
    big = np.abs(u)
    found: Floats = np.log(expit(delta - big) - expit(-delta - big))
    return found


@dataclass(frozen=True)
class CellTerms:
    """Each cell's log-likelihood and its first and second derivatives in u and delta."""

    log_l: float
    du: Floats
    dd: Floats
    duu: Floats
    dud: Floats
    ddd: Floats


def cell_terms(u: Floats, delta: Floats, counts: Floats) -> CellTerms:
    """The cells' log-likelihood and derivatives at u (natural units: SCALE times x) and delta
    (SCALE times the draw margin); `counts` holds each cell's first wins, draws, second wins."""
    w, dr, lo = counts[:, 0], counts[:, 1], counts[:, 2]
    big, little = expit(u + delta), expit(u - delta)  # A = F(u + delta), B = F(u - delta)
    a1, b1 = big * (1 - big), little * (1 - little)
    a2, b2 = a1 * (1 - 2 * big), b1 * (1 - 2 * little)
    log_l = float(w @ log_expit(u - delta) + lo @ log_expit(-u - delta))
    du = w * (1 - little) - lo * big
    dd = -w * (1 - little) - lo * big
    duu = -w * b1 - lo * a1
    dud = w * b1 - lo * a1
    ddd = -w * b1 - lo * a1
    drawn = dr > 0
    if drawn.any():  # the draw terms, only where there are draws (D may underflow elsewhere)
        c, ud, dl = dr[drawn], u[drawn], delta[drawn]
        p = np.exp(_log_draw(ud, dl))
        log_l += float(c @ np.log(p))
        sa1, sb1, sa2, sb2 = a1[drawn], b1[drawn], a2[drawn], b2[drawn]
        gu, gd = (sa1 - sb1) / p, (sa1 + sb1) / p
        du[drawn] += c * gu
        dd[drawn] += c * gd
        duu[drawn] += c * ((sa2 - sb2) / p - gu * gu)
        dud[drawn] += c * ((sa2 + sb2) / p - gu * gd)
        ddd[drawn] += c * ((sa2 - sb2) / p - gd * gd)
    return CellTerms(log_l, du, dd, duu, dud, ddd)


class _Posterior:
    """Minus the log posterior of a tally as a function of theta = (ratings, advantages,
    log draw margins), with its gradient and Hessian (computed together, kept for the last
    theta: scipy asks for them one after the other at the same point)."""

    def __init__(self, t: Tally, players: int, kinds: int, prior_sd: float | None) -> None:
        self.t, self.n, self.k, self.prior_sd = t, players, kinds, prior_sd
        self.size = players + 2 * kinds
        self._at: Floats | None = None
        self._value = 0.0
        self._grad = np.zeros(self.size)
        self._hess = np.zeros((self.size, self.size))
        # Where each cell's second derivatives go in the flattened Hessian, and with which
        # sign: u moves with r_f, -r_s and a_k; delta with the log draw margin m_k.
        f, s, a, d = t.first, t.second, players + t.kind, players + kinds + t.kind
        m = self.size
        self._places = np.concatenate(
            [
                f * m + f, s * m + s, f * m + s, s * m + f,  # uu: ratings
                f * m + a, a * m + f, s * m + a, a * m + s, a * m + a,  # uu: advantage
                f * m + d, d * m + f, s * m + d, d * m + s, a * m + d, d * m + a,  # u, delta
                d * m + d,  # delta, delta
            ]
        )  # fmt: skip
        self._uu_signs = np.array([1, 1, -1, -1, 1, 1, -1, -1, 1], dtype=np.float64)
        self._ud_signs = np.array([1, 1, -1, -1, 1, 1], dtype=np.float64)

    def _compute(self, theta: Floats) -> None:
        if self._at is not None and np.array_equal(theta, self._at):
            return
        n, k, t, m = self.n, self.k, self.t, self.size
        r, a = theta[:n], theta[n : n + k]
        margin = np.exp(theta[n + k :])  # the draw margins, Elo
        u = SCALE * (r[t.first] - r[t.second] + a[t.kind])
        delta = SCALE * margin[t.kind]
        c = cell_terms(u, delta, t.counts)
        dm = SCALE * margin[t.kind]  # d(delta) / d(log margin)
        gu, gm = SCALE * c.du, dm * c.dd
        grad = np.concatenate(
            [
                np.bincount(t.first, gu, n) - np.bincount(t.second, gu, n),
                np.bincount(t.kind, gu, k),
                np.bincount(t.kind, gm, k),
            ]
        )
        huu, hum = SCALE * SCALE * c.duu, SCALE * dm * c.dud
        hmm = dm * dm * c.ddd + dm * c.dd
        weights = np.concatenate(
            [np.outer(self._uu_signs, huu).ravel(), np.outer(self._ud_signs, hum).ravel(), hmm]
        )
        hess = np.bincount(self._places, weights, m * m).reshape(m, m).astype(np.float64)
        value, grad, hess = -c.log_l, -grad, -hess
        if self.prior_sd is not None:
            # The same normal prior on the ratings, the advantages and the draw margins (half
            # normal: margins are positive); a game whose every game was drawn keeps a finite
            # margin so.
            scaled = np.concatenate([theta[: n + k], margin]) / self.prior_sd
            value += float(scaled @ scaled) / 2
            grad[: n + k] += scaled[: n + k] / self.prior_sd
            grad[n + k :] += scaled[n + k :] ** 2
            diagonal = np.concatenate([np.ones(n + k), 2 * scaled[n + k :] ** 2])
            hess[np.arange(m), np.arange(m)] += diagonal / np.concatenate(
                [np.full(n + k, self.prior_sd**2), np.ones(k)]
            )
        self._at, self._value, self._grad, self._hess = theta.copy(), value, grad, hess
        self.log_likelihood = c.log_l

    def value_and_gradient(self, theta: Floats) -> tuple[float, Floats]:
        self._compute(theta)
        return self._value, self._grad

    def hessian(self, theta: Floats) -> Floats:
        self._compute(theta)
        return self._hess


def fit_tally(
    t: Tally,
    players: int,
    kinds: int,
    prior_sd: float | None = DEFAULT_PRIOR_SD,
    start: Floats | None = None,
) -> Fit:
    """The fit of counted games; `start` (a `Fit.vector()`) speeds up a fit of similar games."""
    # The first step may move a rating by this many Elo: far from a cold start, a little
    # from the fit of similar games (scipy's default of 1 would take a dozen steps to grow).
    radius = 200.0 if start is None else 50.0
    if start is None:
        start = np.concatenate([np.zeros(players + kinds), np.full(kinds, 50.0)])
    theta = np.concatenate([start[: players + kinds], np.log(start[players + kinds :])])
    posterior = _Posterior(t, players, kinds, prior_sd)
    found = minimize(
        posterior.value_and_gradient,
        theta,
        jac=True,
        hess=posterior.hessian,
        method="trust-exact",
        options={
            "gtol": 1e-6,
            "maxiter": 500,
            "initial_trust_radius": radius,
            "max_trust_radius": MAX_DRAW_ELO,
        },
    )
    theta = np.asarray(found.x, dtype=np.float64)
    posterior.value_and_gradient(theta)
    return Fit(
        ratings=theta[:players],
        advantage=theta[players : players + kinds],
        draw_elo=np.exp(theta[players + kinds :]),
        log_likelihood=posterior.log_likelihood,
        converged=bool(found.success),
        iterations=int(found.nit),
    )


def fit(games: Games, prior_sd: float | None = DEFAULT_PRIOR_SD) -> Fit:
    """Fit every game at once (see the module's docstring for the model)."""
    return fit_tally(tally(games), games.players, games.kinds, prior_sd)


def outcome_probabilities(x: float, draw_elo: float) -> tuple[float, float, float]:
    """The model's (first wins, draw, second wins) for an Elo difference x, advantage included."""
    first = 1 / (1 + 10 ** (-(x - draw_elo) / 400))
    second = 1 / (1 + 10 ** (-(-x - draw_elo) / 400))
    return first, 1 - first - second, second
