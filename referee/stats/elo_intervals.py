"""How sure the ratings are: a bootstrap over games, its intervals, and the likelihood of
superiority between two players.

Pure numbers, like `elo_fit`. The bootstrap draws the games again with replacement (as many as
there were), refits them (starting from the full fit, so each refit takes a few steps) and keeps
every player's rating; an interval is the middle `level` of those ratings. The likelihood of
superiority (LOS) of i over j is P(r_i > r_j): here Phi(mean / sd) of the bootstrap's
differences r_i - r_j, which keeps the correlation between the two ratings and, unlike counting
the resamples where i was ahead, does not stop at 0 or 1 after a hundred resamples.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from referee.stats.elo_fit import Fit, Floats, Games, Tally, fit_tally, tally

DEFAULT_RESAMPLES = 100
DEFAULT_LEVEL = 0.95


@dataclass(frozen=True)
class Bootstrap:
    """The ratings of every resample: shape (resamples, players)."""

    samples: Floats

    def interval(self, level: float = DEFAULT_LEVEL) -> tuple[Floats, Floats]:
        """Each player's interval: the middle `level` of its resampled ratings."""
        tail = (1 - level) / 2 * 100
        low, high = np.percentile(self.samples, [tail, 100 - tail], axis=0)
        return np.asarray(low), np.asarray(high)

    def superiority(self, i: int, j: int) -> float:
        """P(r_i > r_j), from the resampled differences (0.5 when they never differ)."""
        return likelihood_of_superiority(self.samples[:, i] - self.samples[:, j])


def likelihood_of_superiority(differences: Floats) -> float:
    """Phi(mean / sd) of sampled differences r_i - r_j."""
    mean = float(np.mean(differences))
    sd = float(np.std(differences, ddof=1)) if len(differences) > 1 else 0.0
    if sd == 0.0:
        return 0.5 if mean == 0.0 else float(mean > 0)
    return 0.5 * (1 + math.erf(mean / sd / math.sqrt(2)))


def bootstrap(
    games: Games,
    full: Fit,
    prior_sd: float | None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Bootstrap:
    """Refit `resamples` resamples of `games`; `full` is the fit of all of them."""
    base = tally(games)
    rng = np.random.default_rng(seed)
    cell_outcome = base.cell_of_game * 3 + games.outcome
    samples = np.empty((resamples, games.players))
    for index in range(resamples):
        weights = np.bincount(rng.integers(0, len(games), len(games)), minlength=len(games))
        counts = np.bincount(cell_outcome, weights=weights, minlength=3 * len(base.first))
        table = counts.reshape(-1, 3)
        drawn = table.sum(axis=1) > 0  # a third of the pairs are not drawn again: left out
        again = Tally(
            base.first[drawn],
            base.second[drawn],
            base.kind[drawn],
            table[drawn].astype(np.float64),
            base.cell_of_game,  # not used by a fit
        )
        refit = fit_tally(again, games.players, games.kinds, prior_sd, start=full.vector())
        samples[index] = refit.ratings
        if progress is not None:
            progress(index + 1)
    return Bootstrap(samples)
