"""The sequential probability ratio test of `referee match --sprt`, as fishtest, fastchess and
OpenBench run it, and the number of games it takes.

H0 says the Elo difference is elo0, H1 that it is elo1. After every result the generalized
log-likelihood ratio of the counts (pentanomial: game pairs; trinomial: single games) is
    LLR = l(s1) - l(s0) = N * sum_i f_i ln(p1_i / p0_i)
where f are the observed frequencies and p0 (p1) the distribution of largest likelihood under
H0 (H1) (likelihood.py). Model `logistic` (fishtest's `LLR_logistic`): the hypotheses fix the
mean score, s0 and s1, the scores of elo0 and elo1. Model `normalized` (fishtest's
`LLR_normalized`, OpenBench's pentanomial SPRT): they fix the t-value (mean - 1/2) / sigma at
nelo / (800 / ln 10), times sqrt 2 for pairs (M. Van den Bergh, "Normalized Elo practical",
cantate.be/Fishtest/normalized_elo_practical.pdf). As in fishtest and fastchess, an empty cell
is counted as 0.001 (and N is the sum of the counts so regularised), which keeps the LLR finite
and close to the exact one. The test stops at Wald's bounds: H0 is accepted when
LLR <= ln(beta / (1 - alpha)), H1 when LLR >= ln((1 - beta) / alpha).

How long it takes: near the hypotheses the LLR moves like a Brownian motion with drift
mu = (s - (s0 + s1) / 2) (s1 - s0) / v and variance (s1 - s0)^2 / v per sample, v being the
variance of one sample's score (Van den Bergh, "GSPRT approximation",
cantate.be/Fishtest/GSPRT_approximation.pdf; fishtest's `LLR_drift_variance_alt2`), and a
Brownian motion leaves (a, b) after E[T] = (P b + (1 - P) a) / mu samples on average, with
P = (1 - e^(g a)) / (e^(g b) - e^(g a)), g = -2 mu / variance, the chance of leaving at b
(and E[T] = -a b / variance when mu = 0): `expected_samples`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from referee.stats.elo import NELO_PER_T, elo_of_score, score_of_elo
from referee.stats.likelihood import mean_and_variance, mle_with_mean, mle_with_t_value

EPSILON = 1e-3  # what an empty cell counts as (fishtest's and fastchess's regularisation)
KEYS = ("elo0", "elo1", "alpha", "beta", "model")

Hypothesis = Literal["H0", "H1"]
EloModel = Literal["logistic", "normalized"]


@dataclass(frozen=True)
class Sprt:
    """The test's parameters: H0 elo = elo0, H1 elo = elo1, the error rates alpha (accepting H1
    when H0 holds) and beta (accepting H0 when H1 holds), and the Elo scale of the bounds."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    model: EloModel = "logistic"

    def __post_init__(self) -> None:
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0):
            raise ValueError("alpha and beta must be between 0 and 1")
        if self.alpha + self.beta >= 1.0:
            raise ValueError("alpha + beta must be below 1")
        if not self.elo0 < self.elo1:
            raise ValueError("elo0 must be below elo1")
        if self.model not in ("logistic", "normalized"):
            raise ValueError(f"model={self.model}: expected logistic or normalized")

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

    def describe(self) -> str:
        model = "" if self.model == "logistic" else " model=normalized"
        return (
            f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}" + model
        )


def parse_sprt(words: Sequence[str]) -> Sprt:
    """`elo0=0 elo1=20 alpha=0.05 beta=0.05 model=logistic` (any subset, any order); a
    ValueError says what is wrong."""
    values: dict[str, float] = {}
    model: EloModel = "logistic"
    for word in words:
        key, sep, text = word.partition("=")
        if not sep or key not in KEYS:
            raise ValueError(f"--sprt {word!r}: expected elo0=, elo1=, alpha=, beta= or model=")
        if key == "model":
            if text not in ("logistic", "normalized"):
                raise ValueError(f"--sprt {word!r}: the model is logistic or normalized")
            model = "logistic" if text == "logistic" else "normalized"
            continue
        try:
            values[key] = float(text)
        except ValueError:
            raise ValueError(f"--sprt {word!r}: {text!r} is not a number") from None
        if not math.isfinite(values[key]):
            raise ValueError(f"--sprt {word!r}: not a finite number")
    return Sprt(**values, model=model)


def regularized(counts: Sequence[float]) -> list[float]:
    return [float(c) if c > 0 else EPSILON for c in counts]


def llr(counts: Sequence[int], values: Sequence[float], sprt: Sprt) -> float:
    """The GSPRT log-likelihood ratio of H1 against H0 for counts on the score `values` (this
    module's docstring); 0 before any result."""
    if sum(counts) == 0:
        return 0.0
    cells = regularized(counts)
    if sprt.model == "logistic":
        p0, p1 = (mle_with_mean(cells, values, score_of_elo(e)) for e in (sprt.elo0, sprt.elo1))
    else:
        scale = math.sqrt(2.0) if len(values) == 5 else 1.0  # a pair's sigma is the game's/sqrt 2
        p0, p1 = (
            mle_with_t_value(cells, values, 0.5, e / NELO_PER_T * scale)
            for e in (sprt.elo0, sprt.elo1)
        )
    return sum(c * math.log(b / a) for c, a, b in zip(cells, p0, p1, strict=True))


def llr_approximation(counts: Sequence[int], values: Sequence[float], sprt: Sprt) -> float:
    """The quadratic approximation of the logistic `llr`: N (s1 - s0)(2 s - s0 - s1) / (2 v)
    with s the mean and v the variance of a sample's score."""
    if sum(counts) == 0:
        return 0.0
    cells = regularized(counts)
    mean, variance = mean_and_variance(cells, values)
    s0, s1 = score_of_elo(sprt.elo0), score_of_elo(sprt.elo1)
    return sum(cells) * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)


def expected_samples(sprt: Sprt, elo: float, variance: float) -> float:
    """The average number of samples (pairs or games) the logistic test takes when the true
    difference is `elo` and one sample's score has this variance (this module's docstring;
    the overshoot of the last sample is neglected)."""
    s0, s1, s = score_of_elo(sprt.elo0), score_of_elo(sprt.elo1), score_of_elo(elo)
    drift = (s - (s0 + s1) / 2.0) * (s1 - s0) / variance
    spread = (s1 - s0) ** 2 / variance
    a, b = sprt.lower, sprt.upper
    if abs(drift) < 1e-12 * spread:
        return -a * b / spread
    g = -2.0 * drift / spread
    # P = (1 - e^(g a)) / (e^(g b) - e^(g a)), rewritten so that no exponent is positive
    if g > 0:
        upper = (math.exp(-g * b) - math.exp(g * (a - b))) / -math.expm1(g * (a - b))
    else:
        upper = math.expm1(-g * a) / math.expm1(g * (b - a))
    return (upper * b + (1.0 - upper) * a) / drift


def pair_variance(elo: float, draw_ratio: float) -> float:
    """The variance of a pair's score per game when its two games are independent, each a
    draw with probability `draw_ratio` and scoring the score of `elo` on average."""
    s = score_of_elo(elo)
    return (s * (1.0 - s) - draw_ratio / 4.0) / 2.0


def typical_games(sprt: Sprt) -> int:
    """About how many games the test takes between bots elo1 apart that never draw, in pairs
    of independent games (draws and pairs that cancel the first move's advantage shorten it;
    a difference between elo0 and elo1 lengthens it: docs/match.md has a table)."""
    if sprt.model == "normalized":
        # With no draws a game's score has sigma 1/2: normalised Elo maps to scores.
        s0, s1 = (0.5 + e / NELO_PER_T * 0.5 for e in (sprt.elo0, sprt.elo1))
        sprt = Sprt(elo_of_score(s0), elo_of_score(s1), sprt.alpha, sprt.beta)
    pairs = expected_samples(sprt, sprt.elo1, pair_variance(sprt.elo1, 0.0))
    return 2 * math.ceil(pairs)
