"""The match statistics against an independent computation of their published definitions
(independent.py: direct numerical maximisation and the convex dual, with scipy), to 1e-6 on
constructed counts: the GSPRT's LLR (logistic and normalised, pentanomial and trinomial), the
95% interval's ends in score and in Elo, and the LOS."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from referee.stats.elo import elo_of_score
from referee.stats.estimate import GAME_SCORES, PAIR_SCORES, estimate
from referee.stats.sprt import Sprt, llr
from tests.stats import independent

# Pentanomial counts (pairs scoring 0, 1/2, 1, 3/2, 2 points): ordinary samples, empty cells at
# the ends and inside, a near sweep, pairs that all scored the same, and a large sample of the
# size chess engine testers run.
PENTANOMIAL = [
    [5, 10, 20, 15, 10],
    [0, 3, 10, 5, 2],
    [0, 0, 4, 0, 11],
    [1, 0, 0, 0, 14],
    [0, 0, 2, 0, 0],
    [10, 20, 40, 20, 10],
    [2, 30, 51, 27, 0],
    [39, 8843, 26675, 9240, 44],
]
# Trinomial counts (losses, draws, wins).
TRINOMIAL = [[30, 40, 30], [3, 5, 25], [12, 0, 3], [0, 7, 0], [1, 0, 29]]
BOUNDS = [(0.0, 20.0), (-10.0, 5.0), (0.0, 200.0)]
TOLERANCE = 1e-6


def _cases() -> list[tuple[list[int], tuple[float, ...]]]:
    return [(c, PAIR_SCORES) for c in PENTANOMIAL] + [(c, GAME_SCORES) for c in TRINOMIAL]


@pytest.mark.parametrize(("counts", "values"), _cases())
@pytest.mark.parametrize(("elo0", "elo1"), BOUNDS)
def test_logistic_llr_agrees_with_direct_maximisation(
    counts: list[int], values: tuple[float, ...], elo0: float, elo1: float
) -> None:
    expected = independent.llr_logistic(counts, values, elo0, elo1)
    assert llr(counts, values, Sprt(elo0, elo1)) == pytest.approx(expected, abs=TOLERANCE)


@pytest.mark.parametrize(("counts", "values"), _cases())
@pytest.mark.parametrize(("nelo0", "nelo1"), [(0.0, 10.0), (0.5, 2.5), (-5.0, 30.0)])
def test_normalized_llr_agrees_with_direct_maximisation(
    counts: list[int], values: tuple[float, ...], nelo0: float, nelo1: float
) -> None:
    expected = independent.llr_normalized(counts, values, nelo0, nelo1)
    sprt = Sprt(nelo0, nelo1, model="normalized")
    assert llr(counts, values, sprt) == pytest.approx(expected, abs=TOLERANCE)


def _not_a_sweep(counts: list[int]) -> bool:
    return counts[0] != sum(counts) and counts[-1] != sum(counts)


@pytest.mark.parametrize(("counts", "values"), [c for c in _cases() if _not_a_sweep(c[0])])
def test_interval_and_los_agree_with_the_dual_computation(
    counts: list[int], values: tuple[float, ...]
) -> None:
    model = "pentanomial" if len(values) == 5 else "trinomial"
    ours = estimate(counts, model)
    low, high = independent.interval(counts, values)
    assert ours.score_low == pytest.approx(low, abs=TOLERANCE)
    assert ours.score_high == pytest.approx(high, abs=TOLERANCE)
    assert ours.elo_low == pytest.approx(elo_of_score(low), abs=TOLERANCE)
    assert ours.elo_high == pytest.approx(elo_of_score(high), abs=TOLERANCE)
    assert ours.los == pytest.approx(independent.los(counts, values), abs=TOLERANCE)


def test_the_two_independent_maximisations_agree() -> None:
    """The test's own two routes to the profile likelihood (primal, dual) give one value."""
    for counts in ([5, 10, 20, 15, 10], [1, 2, 3, 4, 5]):
        for s in (0.3, 0.5, 0.61):
            primal = independent.profile(counts, PAIR_SCORES, s)
            assert primal == pytest.approx(independent.dual_profile(counts, PAIR_SCORES, s))


def test_large_samples_agree_with_the_normal_interval_of_the_testers() -> None:
    """For tens of thousands of games the likelihood-ratio interval is the normal one of
    fishtest and fastchess (mean +- 1.96 sd / sqrt N) within a few hundredths of an Elo."""
    for counts in ([39, 8843, 26675, 9240, 44], [100, 300, 400, 150, 50]):
        ours = estimate(counts, "pentanomial")
        low, high = independent.normal_interval(counts, PAIR_SCORES)
        tolerance = 0.05 if sum(counts) > 10000 else 1.0
        assert ours.elo_low == pytest.approx(elo_of_score(low), abs=tolerance)
        assert ours.elo_high == pytest.approx(elo_of_score(high), abs=tolerance)


SWEEPS = [([0, 0, 0, 0, 6], PAIR_SCORES), ([3, 0, 0, 0, 0], PAIR_SCORES), ([0, 0, 9], GAME_SCORES)]


@pytest.mark.parametrize(("counts", "values"), SWEEPS)
def test_a_sweeps_interval_agrees_with_the_dual_computation(
    counts: list[int], values: tuple[float, ...]
) -> None:
    """A sweep's interval is the likelihood-ratio interval like any other: no end on the side
    of the sweep, the other end where the dual's likelihood ratio reaches the chi-square
    point."""
    model = "pentanomial" if len(values) == 5 else "trinomial"
    ours = estimate(counts, model)
    won = counts[-1] == sum(counts)
    best = independent.top(counts)

    def excess(s: float) -> float:
        return 2 * (best - independent.dual_profile(counts, values, s)) - independent.CHI2

    end = independent._crossing(excess, float(won), -1.0 if won else 1.0)
    bound, open_end = (
        (ours.score_low, ours.score_high) if won else (ours.score_high, ours.score_low)
    )
    assert bound == pytest.approx(end, abs=TOLERANCE)
    assert open_end == float(won)
    assert ours.los == pytest.approx(independent.los(counts, values), abs=TOLERANCE)


@pytest.mark.parametrize("pairs", [1, 5, 15, 50])
def test_a_sweep_has_the_likelihood_ratio_lower_bound(pairs: int) -> None:
    """N won pairs: the distribution of mean s most likely to give them wins a pair with
    probability s (by linear programming) and loses otherwise, so l(s) = N ln s and the end is
    where 2 N ln(1/s) reaches the chi-square point."""
    ours = estimate([0, 0, 0, 0, pairs], "pentanomial")
    assert ours.score_high == 1.0 and math.isinf(ours.elo_high)

    def most_likely_won_pair(s: float) -> float:
        result = optimize.linprog(
            c=[0, 0, 0, 0, -1],  # maximise p(won pair)
            A_eq=[[1] * 5, list(PAIR_SCORES)],
            b_eq=[1, s],
            bounds=[(0, 1)] * 5,
        )
        return float(-result.fun)

    bound = optimize.brentq(
        lambda s: -2 * pairs * np.log(most_likely_won_pair(s)) - independent.CHI2, 1e-9, 1 - 1e-12
    )
    assert ours.score_low == pytest.approx(bound, abs=TOLERANCE)
    assert math.isfinite(ours.elo_low)


def test_thirty_straight_wins_give_a_finite_lower_bound() -> None:
    # 15 pairs won: exp(-3.8415 / 30) = 0.879812 -> -400 log10(1 / 0.879812 - 1) = +345.8 Elo
    ours = estimate([0, 0, 0, 0, 15], "pentanomial")
    expected = -400 * np.log10(1 / np.exp(-independent.CHI2 / 30) - 1)
    assert ours.elo_low == pytest.approx(expected, abs=TOLERANCE)
    assert ours.elo_low == pytest.approx(345.8, abs=0.05)
    lost = estimate([15, 0, 0, 0, 0], "pentanomial")
    assert lost.elo_high == pytest.approx(-expected, abs=TOLERANCE)
    assert math.isinf(lost.elo_low)
