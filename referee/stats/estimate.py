"""A match's score with its 95% interval in Elo and normalised Elo, and the likelihood of
superiority (LOS), from pentanomial counts (game pairs) or trinomial counts (single games).

The interval is the likelihood-ratio interval of the counts' own model (likelihood.py): the
mean scores s with 2 (l(s_hat) - l(s)) <= 3.8415 (the 95% point of chi-square with one degree
of freedom; Wilks' theorem). It never leaves the possible scores, does not collapse to a point
when every pair scored the same, and for hundreds of games agrees with the normal interval of
fishtest and fastchess (s_hat +- 1.96 sigma / sqrt(N)) to a fraction of an Elo.

A sweep (every pair, or game, won) is no exception: its likelihood is largest at a 100% score,
so the interval has no upper end, and its lower end is where the same likelihood ratio reaches
3.8415 (the best distribution with mean s then wins a pair with probability s and loses one
otherwise: l(s) = N ln s, the end is exp(-3.8415 / 2N)). One method for every sample keeps the
figures in order: a better result never gives a weaker claim. The same holds, mirrored, when
every pair was lost.

LOS, the probability that the first player is the stronger, is Phi(r) with r the signed root
2 (l(s_hat) - l(1/2)), sign of s_hat - 1/2: for many games fastchess's Phi((s_hat - 1/2) /
(sigma / sqrt(N))), and finite, and below 100%, for small samples. Read on the same likelihood,
each end of the interval is a one-sided bound at 97.5% (r = 1.96): the interval lies above 0
Elo exactly when the LOS is above 97.5%.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from referee.stats.elo import elo_of_score, nelo_of_score, normal_quantile, phi
from referee.stats.likelihood import largest, mean_and_variance, profile

LEVEL = 0.95
CHI2 = normal_quantile(0.5 + LEVEL / 2) ** 2  # 3.8415: chi-square(1)'s 95% point
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's score per game; index = points of 4
GAME_SCORES = (0.0, 0.5, 1.0)  # a loss, a draw, a win
_STEPS = 200

Model = Literal["pentanomial", "trinomial"]


@dataclass(frozen=True)
class Estimate:
    """The first player's mean score per game with its 95% interval, its spread and the LOS;
    the Elo and normalised Elo figures follow from them."""

    model: Model
    samples: int  # pairs (pentanomial) or games (trinomial)
    score: float
    score_low: float
    score_high: float
    sigma: float  # the standard deviation of one game's score (from pairs: sqrt 2 times theirs)
    los: float

    @property
    def games(self) -> int:
        return 2 * self.samples if self.model == "pentanomial" else self.samples

    @property
    def elo(self) -> float:
        return elo_of_score(self.score)

    @property
    def elo_low(self) -> float:
        return elo_of_score(self.score_low)

    @property
    def elo_high(self) -> float:
        return elo_of_score(self.score_high)

    @property
    def nelo(self) -> float | None:
        return nelo_of_score(self.score, self.sigma)

    @property
    def nelo_low(self) -> float | None:
        return nelo_of_score(self.score_low, self.sigma)

    @property
    def nelo_high(self) -> float | None:
        return nelo_of_score(self.score_high, self.sigma)


def estimate(counts: Sequence[int], model: Model) -> Estimate:
    """The estimate from pentanomial counts (`counts[k]` pairs scored k/2 points of 2) or
    trinomial ones (losses, draws, wins)."""
    values = PAIR_SCORES if model == "pentanomial" else GAME_SCORES
    n = sum(counts)
    if n == 0:
        return Estimate(model, 0, 0.5, 0.0, 1.0, 0.0, 0.5)
    weights = [float(c) for c in counts]
    score, variance = mean_and_variance(weights, values)
    low, high = interval(weights, values)
    sigma = math.sqrt(2.0 * variance if model == "pentanomial" else variance)
    return Estimate(model, n, score, low, high, sigma, los(weights, values))


def interval(counts: Sequence[float], values: Sequence[float]) -> tuple[float, float]:
    """The 95% interval of the mean score (this module's docstring)."""
    score, _ = mean_and_variance(counts, values)
    top = largest(counts)

    def inside(s: float) -> bool:
        return 2.0 * (top - profile(counts, values, s)) <= CHI2

    return _edge(inside, score, 0.0), _edge(inside, score, 1.0)


def _edge(inside: Callable[[float], bool], at: float, towards: float) -> float:
    """Where `inside` turns false between `at` (inside) and `towards`, by bisection."""
    if inside(towards):
        return towards
    good, bad = at, towards
    for _ in range(_STEPS):
        middle = (good + bad) / 2.0
        if middle in (good, bad):
            break
        if inside(middle):
            good = middle
        else:
            bad = middle
    return (good + bad) / 2.0


def los(counts: Sequence[float], values: Sequence[float]) -> float:
    """The likelihood of superiority (this module's docstring)."""
    score, _ = mean_and_variance(counts, values)
    statistic = max(0.0, 2.0 * (largest(counts) - profile(counts, values, 0.5)))
    return phi(math.copysign(math.sqrt(statistic), score - 0.5) if score != 0.5 else 0.0)
