"""The statistics of a match between two players: score, Elo difference with a 95% interval,
likelihood of superiority (LOS), and the sequential probability ratio test (SPRT) on game pairs.

Pure functions of counts, no I/O: `referee match` and its live view call them after every game.

Elo model: logistic, as in chess engine testing (cutechess-cli, fishtest's "logistic Elo"):
a score s (wins + draws/2 per game) and an Elo difference e are related by
    s = 1 / (1 + 10^(-e/400)),   e = -400 * log10(1/s - 1).

Game pairs (pentanomial model): the games of a match are played in pairs, the same two players
with colours swapped (games 1 and 2, 3 and 4, ... of the schedule). A pair scores 0, 1/2, 1,
3/2 or 2 for the first player; the five counts are the pentanomial. Scoring by pairs cancels
most of the first-move advantage, so its variance is smaller than that of single games, and the
test needs fewer games (Michel Van den Bergh, "Normalized Elo" and "A practical guide to the
GSPRT", https://www.cantate.be/Fishtest/; fishtest's `server/fishtest/stats/stat_util.py`).

GSPRT: H0 is "the Elo difference is elo0", H1 is "it is elo1"; s0, s1 are their scores. The
generalized log-likelihood ratio of the N complete pairs is
    LLR = N * sum_i f_i * ln(p1_i / p0_i)
where f is the observed distribution of the pair scores x_i and p0 (p1) is the distribution of
largest likelihood among those whose mean is s0 (s1): p_i = f_i / (1 + theta * (x_i - s)), theta
solving sum_i f_i * (x_i - s) / (1 + theta * (x_i - s)) = 0 (Van den Bergh, "Support of the
MLE of a multinomial with a given expectation", hardy.uhasselt.be/Fishtest/
support_MLE_multinomial.pdf; fishtest's `LLRcalc.MLE_expected` and `LLR_logistic`). When s is
near s0 and s1 it is close to the well-known approximation (Van den Bergh,
hardy.uhasselt.be/Toga/GSPRT_approximation.pdf; fishtest's `LLR_alt2`), `llr_approximation`:
    LLR ~ N * (s1 - s0) * (2*s - s0 - s1) / (2 * var) = (N/2) * ((s-s0)^2 - (s-s1)^2) / var
with s the mean and var the variance of a pair's mean score. The exact form is used because the
approximation grows without bound for one-sided samples (a much stronger bot winning every pair),
which would stop a match after two pairs. The test stops when LLR <= A = ln(beta / (1 - alpha))
(H0 accepted) or LLR >= B = ln((1 - beta) / alpha) (H1 accepted) (Wald's bounds).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

Z95 = 1.959963984540054  # the two-sided 95% quantile of the normal distribution
# Pair scores, normalized per game (0, 1/4, 1/2, 3/4, 1): index = points of the pair out of 4.
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
# An empty pentanomial cell is counted as this much: with no regularization a sample such as
# "every pair won" has zero variance and an infinite LLR (fishtest does the same).
EPSILON = 1e-3

Hypothesis = Literal["H0", "H1"]


def score_of_elo(elo: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of_score(score: float) -> float:
    """The logistic Elo difference of a score per game; +-inf at a score of 1 or 0."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def phi(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority: the probability that the first player is the stronger, from
    wins and losses (draws carry no information about it): Phi((W - L) / sqrt(W + L)), the
    formula of cutechess-cli."""
    if wins + losses == 0:
        return 0.5
    return phi((wins - losses) / math.sqrt(wins + losses))


@dataclass(frozen=True)
class Estimate:
    """The Elo difference of the first player over the second, with its 95% interval."""

    games: int
    score: float  # mean score per game, 0..1
    elo: float
    low: float
    high: float


def _estimate(values: Sequence[float], counts: Sequence[float], games: int) -> Estimate:
    """Mean and normal 95% interval of a sample given as values with counts, mapped to Elo."""
    n = sum(counts)
    if n == 0:
        return Estimate(games, 0.5, 0.0, -math.inf, math.inf)
    mean = sum(v * c for v, c in zip(values, counts, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for v, c in zip(values, counts, strict=True)) / n
    sigma = math.sqrt(var / n)  # the standard error of the mean
    low, high = mean - Z95 * sigma, mean + Z95 * sigma
    return Estimate(games, mean, elo_of_score(mean), elo_of_score(low), elo_of_score(high))


def trinomial_estimate(wins: int, draws: int, losses: int) -> Estimate:
    """From single games (cutechess-cli's interval): score 1, 1/2 or 0 per game."""
    games = wins + draws + losses
    return _estimate((1.0, 0.5, 0.0), (wins, draws, losses), games)


def pentanomial_estimate(counts: Sequence[int]) -> Estimate:
    """From game pairs (fishtest's interval): `counts[k]` pairs scored k/2 points of 2."""
    return _estimate(PAIR_SCORES, counts, 2 * sum(counts))


def _distribution(counts: Sequence[int]) -> list[float]:
    cells = [max(float(c), EPSILON) for c in counts]
    return [c / sum(cells) for c in cells]


def mle_with_mean(f: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """The distribution on `values` of largest likelihood for the observed frequencies `f`
    among those with mean `s` (every f_i > 0, min(values) < s < max(values))."""
    d = [v - s for v in values]
    # theta ranges where every 1 + theta * d_i stays positive; the sum falls as theta grows.
    low, high = -1.0 / max(d), -1.0 / min(d)
    for _ in range(200):
        theta = (low + high) / 2
        total = sum(fi * di / (1 + theta * di) for fi, di in zip(f, d, strict=True))
        if total > 0:
            low = theta
        else:
            high = theta
    theta = (low + high) / 2
    return [fi / (1 + theta * di) for fi, di in zip(f, d, strict=True)]


def llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0) for pentanomial counts,
    in the logistic Elo model (this module's docstring)."""
    pairs = sum(counts)
    if pairs == 0:
        return 0.0
    f = _distribution(counts)
    p0 = mle_with_mean(f, PAIR_SCORES, score_of_elo(elo0))
    p1 = mle_with_mean(f, PAIR_SCORES, score_of_elo(elo1))
    return pairs * sum(fi * math.log(b / a) for fi, a, b in zip(f, p0, p1, strict=True))


def llr_approximation(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The quadratic approximation of `llr` (this module's docstring)."""
    pairs = sum(counts)
    if pairs == 0:
        return 0.0
    f = _distribution(counts)
    mean = sum(v * c for v, c in zip(PAIR_SCORES, f, strict=True))
    var = sum(c * (v - mean) ** 2 for v, c in zip(PAIR_SCORES, f, strict=True))
    s0, s1 = score_of_elo(elo0), score_of_elo(elo1)
    return pairs * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


@dataclass(frozen=True)
class Sprt:
    """The test's parameters: H0 elo = elo0, H1 elo = elo1, the error rates alpha (accepting H1
    when H0 holds) and beta (accepting H0 when H1 holds)."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0):
            raise ValueError("alpha and beta must be between 0 and 1")
        if self.alpha + self.beta >= 1.0:
            raise ValueError("alpha + beta must be below 1")
        if not self.elo0 < self.elo1:
            raise ValueError("elo0 must be below elo1")

    @property
    def lower(self) -> float:
        """A: at or below it, H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """B: at or above it, H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def decide(self, value: float) -> Hypothesis | None:
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None


def parse_sprt(words: Sequence[str]) -> Sprt:
    """`elo0=0 elo1=20 alpha=0.05 beta=0.05` (any subset, any order); ValueError says why not."""
    values: dict[str, float] = {}
    for word in words:
        key, sep, text = word.partition("=")
        if not sep or key not in ("elo0", "elo1", "alpha", "beta"):
            raise ValueError(f"{word!r}: expected elo0=, elo1=, alpha= or beta=")
        try:
            values[key] = float(text)
        except ValueError:
            raise ValueError(f"{word!r}: {text!r} is not a number") from None
    return Sprt(**values)


def pentanomial(scores: Mapping[int, float]) -> list[int]:
    """The pentanomial counts of the complete pairs among finished games: `scores` maps a game
    number (from 1, in schedule order) to the first player's score in it (1, 1/2 or 0). Games
    2k-1 and 2k form pair k (the schedule of two players alternates colours game by game); a
    pair with a game not finished yet does not count."""
    counts = [0] * 5
    for first, score in scores.items():
        if first % 2 == 1 and first + 1 in scores:
            counts[round(2 * (score + scores[first + 1]))] += 1
    return counts


@dataclass(frozen=True)
class MatchStats:
    """Everything the match view shows, from the first player's scores by game number."""

    wins: int
    draws: int
    losses: int
    pairs: list[int]  # pentanomial counts
    estimate: Estimate  # from pairs when there are any, else from single games
    los: float
    llr: float | None  # None without an SPRT
    decision: Hypothesis | None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def match_stats(scores: Mapping[int, float], sprt: Sprt | None = None) -> MatchStats:
    wins = sum(1 for s in scores.values() if s == 1.0)
    losses = sum(1 for s in scores.values() if s == 0.0)
    draws = len(scores) - wins - losses
    pairs = pentanomial(scores)
    estimate = (
        pentanomial_estimate(pairs) if sum(pairs) >= 2 else trinomial_estimate(wins, draws, losses)
    )
    value = llr(pairs, sprt.elo0, sprt.elo1) if sprt is not None else None
    decision = sprt.decide(value) if sprt is not None and value is not None else None
    return MatchStats(wins, draws, losses, pairs, estimate, los(wins, losses), value, decision)
