"""Laplace intervals: the entries of the inverse Hessian that the report needs, without a dense
inverse when that would be too big.

At the maximum the ratings are approximately normal with covariance S = H^-1 (H: the Hessian of
minus the log-likelihood, or of the log posterior where a prior is used, over the fitted
parameters). A rating shown against a reference w (its component's core mean, or the anchor)
has variance S_ii - 2 (S w)_i + w' S w; two ratings differ with variance S_ii + S_jj - 2 S_ij.
So the report needs the diagonal of S, one solve S w per reference, the S_ij of the pairs whose
LOS is shown, and for the LOS matrix the block of S over the rows shown. Below `DENSE_LIMIT`
parameters S is formed whole from the Cholesky factor; above, the columns of S are solved for
in blocks of `BLOCK` from the sparse factorisation and only the needed entries kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.stats.rating_fit import Factor
from referee.stats.rating_terms import Floats, Ints

BLOCK = 256  # columns solved at once on the sparse path (BLOCK x parameters floats)


@dataclass(frozen=True)
class Selected:
    diagonal: Floats  # S_ii for every fitted parameter
    pairs: Floats  # S_ij for each requested (i, j)
    block: Floats | None  # S over the requested block, if any


def selected(factor: Factor, pairs: Ints, block: Ints | None) -> Selected:
    """S's diagonal, the entries at `pairs` (shape (m, 2), positions among the fitted
    parameters) and the submatrix over `block`."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if factor.dense:
        inverse = factor.inverse()
        sub = None if block is None else inverse[np.ix_(block, block)]
        return Selected(np.diag(inverse).copy(), inverse[pairs[:, 0], pairs[:, 1]], sub)
    size = factor.size
    diagonal = np.empty(size)
    found = np.empty(len(pairs))
    for start in range(0, size, BLOCK):
        columns = np.arange(start, min(size, start + BLOCK))
        unit = np.zeros((size, len(columns)))
        unit[columns, np.arange(len(columns))] = 1.0
        solved = factor.solve(unit)
        diagonal[columns] = solved[columns, np.arange(len(columns))]
        here = (pairs[:, 1] >= start) & (pairs[:, 1] < start + len(columns))
        found[here] = solved[pairs[here, 0], pairs[here, 1] - start]
    sub = None
    if block is not None:
        sub = np.empty((len(block), len(block)))
        for start in range(0, len(block), BLOCK):
            part = block[start : start + BLOCK]
            unit = np.zeros((size, len(part)))
            unit[part, np.arange(len(part))] = 1.0
            sub[:, start : start + len(part)] = factor.solve(unit)[block]
    return Selected(diagonal, found, sub)


def times(factor: Factor, weights: Floats) -> Floats:
    """S w."""
    return factor.solve(weights)
