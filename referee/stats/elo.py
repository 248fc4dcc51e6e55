"""Scores and Elo differences: the logistic scale of chess engine testing, normalised Elo, and
the normal distribution the intervals and the LOS are read on.

A score s per game (a win 1, a draw 1/2) and a logistic Elo difference e are related by
    s = 1 / (1 + 10^(-e/400)),   e = -400 * log10(1/s - 1).
Normalised Elo (M. Van den Bergh, "Normalized Elo practical",
cantate.be/Fishtest/normalized_elo_practical.pdf) measures the score against its spread:
nElo = (s - 1/2) / sigma * 800 / ln 10, sigma being the standard deviation of one game's score
(of a pair's per-game score times sqrt 2 for pairs), so that it says how many games a
difference takes to show, whatever the draw rate.
"""

from __future__ import annotations

import math
from statistics import NormalDist

NELO_PER_T = 800.0 / math.log(10.0)  # normalised Elo of a t-value (mean - 1/2) / sigma of 1
_NORMAL = NormalDist()


def score_of_elo(elo: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of_score(score: float) -> float:
    """The logistic Elo difference of a score per game; +-inf at a score of 1 or 0."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def nelo_of_score(score: float, sigma: float) -> float | None:
    """The normalised Elo of a score per game whose per-game standard deviation is `sigma`;
    None when the scores have no spread (the scale is then undefined)."""
    if sigma <= 0.0:
        return None
    return (score - 0.5) / sigma * NELO_PER_T


def phi(x: float) -> float:
    """The standard normal distribution function."""
    return _NORMAL.cdf(x)


def normal_quantile(p: float) -> float:
    return _NORMAL.inv_cdf(p)


def rounded_elo(value: float, digits: int = 1) -> float:
    """An Elo value rounded for people, never -0.0: a difference that rounds to nothing has no
    sign (adding 0.0 turns -0.0 into 0.0)."""
    return round(value, digits) + 0.0


def signed_elo(value: float, digits: int = 1) -> str:
    """An Elo difference with its sign, `+12.3`, `-4.0`, `+0.0` (never `-0.0`), `+inf`."""
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{rounded_elo(value, digits):+.{digits}f}"
