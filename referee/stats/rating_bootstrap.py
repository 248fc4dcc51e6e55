"""Bootstrap intervals, on request: the games the fit used are drawn again with replacement (as
many as there were, a multinomial over the counted cells, so the cost does not grow with the
games) and refitted from the full fit. Each refit also has the weak normal prior on every
rating, so that a resample that lost the one game keeping a rating finite still gives a
number; the ratings are then put on the same reference as the full fit's. A player's interval
is the middle `level` of its resampled ratings. Players whose maximum likelihood is infinite keep
their one-sided interval from the likelihood: resamples of a sweep are sweeps too.
"""

from __future__ import annotations

import numpy as np

from referee.stats.rating_fit import Setup, fit
from referee.stats.rating_terms import Floats


def samples(setup: Setup, theta: Floats, resamples: int, seed: int, prior_sd: float) -> Floats:
    """The resampled ratings, shape (resamples, players), each sample as fitted (the caller
    puts them on its reference)."""
    rng = np.random.default_rng(seed)
    counts = setup.cells.counts
    flat = counts.ravel()
    total = round(float(flat.sum()))
    n = setup.players
    prior = setup.prior.copy()
    prior[:n] = np.where(setup.free[:n], 1.0 / prior_sd**2, prior[:n])
    found = np.empty((resamples, n))
    for index in range(resamples):
        drawn = rng.multinomial(total, flat / flat.sum()).astype(np.float64)
        again = Setup(
            setup.cells.with_counts(drawn.reshape(counts.shape)),
            n, setup.kinds, setup.free, prior, setup.offset,
        )  # fmt: skip
        found[index] = fit(again, theta).theta[:n]
    return found


def interval(values: Floats, level: float) -> tuple[Floats, Floats]:
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail], axis=0)
    return np.asarray(low), np.asarray(high)
