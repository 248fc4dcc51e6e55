"""The estimate of a match: Elo and its interval (finite after a sweep, never a point),
normalised Elo as fastchess computes it, the LOS, and which counts the match uses."""

from __future__ import annotations

import math

import pytest

from referee.stats.elo import NELO_PER_T, elo_of_score, score_of_elo
from referee.stats.estimate import estimate
from referee.stats.match import match_stats, pentanomial, trinomial


def test_elo_of_a_60_percent_score() -> None:
    # -400 * log10(1/0.6 - 1) = 400 * log10(1.5) = 70.436...
    assert elo_of_score(0.6) == pytest.approx(70.4365, abs=1e-3)
    assert score_of_elo(elo_of_score(0.6)) == pytest.approx(0.6)
    assert elo_of_score(0.5) == 0.0
    assert elo_of_score(1.0) == math.inf


def test_pairs_that_all_scored_the_same_give_a_real_interval() -> None:
    # Two pairs, each split 1-1: the interval is symmetric and wide, not [0, 0].
    # Above 1/2 the best distribution keeps split pairs and adds won ones: l(s) = 2 ln(2 - 2s),
    # so the end is 1 - exp(-3.8415 / 4) / 2 = 0.80862.
    ours = estimate([0, 0, 2, 0, 0], "pentanomial")
    assert ours.elo == 0.0
    assert ours.score_high == pytest.approx(1 - math.exp(-3.841459 / 4) / 2, abs=1e-6)
    assert ours.elo_low == pytest.approx(-ours.elo_high)
    assert ours.nelo is None  # no spread: normalised Elo is undefined
    assert ours.los == 0.5


def test_normalised_elo_is_fastchess_formula() -> None:
    # nElo = (s - 1/2) / sqrt(2 var) * 800 / ln 10, var that of a pair's per-game score.
    counts = [5, 10, 20, 15, 10]
    mean = 33.75 / 60
    variance = 24.0625 / 60 - mean**2
    ours = estimate(counts, "pentanomial")
    assert ours.nelo == pytest.approx((mean - 0.5) / math.sqrt(2 * variance) * NELO_PER_T)
    assert ours.nelo_low is not None and ours.nelo_high is not None
    assert ours.nelo_low < ours.nelo < ours.nelo_high
    trinomial_ = estimate([30, 20, 50], "trinomial")
    game_variance = (50 * 0.4**2 + 20 * 0.1**2 + 30 * 0.6**2) / 100
    assert trinomial_.nelo == pytest.approx(0.1 / math.sqrt(game_variance) * NELO_PER_T)


def test_los_is_a_probability_that_follows_the_score() -> None:
    better = estimate([2, 8, 20, 12, 8], "pentanomial").los
    worse = estimate([8, 12, 20, 8, 2], "pentanomial").los
    assert 0.5 < better < 1 and worse == pytest.approx(1 - better)
    assert estimate([0, 0, 0, 0, 1], "pentanomial").los < 0.95  # one won pair proves little
    assert estimate([0, 0, 0, 0, 15], "pentanomial").los > 0.9999


def test_no_result_yet() -> None:
    ours = estimate([0, 0, 0, 0, 0], "pentanomial")
    assert (ours.samples, ours.score, ours.los) == (0, 0.5, 0.5)
    assert math.isinf(ours.elo_low) and math.isinf(ours.elo_high)


def test_a_trinomial_sweep_is_bounded_by_its_games() -> None:
    # The best distribution with mean s wins with probability s and loses otherwise:
    # l(s) = 30 ln s, and 2 (0 - l(s)) = 3.8415 at s = exp(-3.8415 / 60).
    ours = estimate([0, 0, 30], "trinomial")
    assert ours.score_low == pytest.approx(math.exp(-3.841459 / 60), abs=1e-6)
    assert math.isfinite(ours.elo_low) and math.isinf(ours.elo_high)


def test_pairs_are_consecutive_games() -> None:
    # Pair (1, 2) scores 1 + 1/2, pair (3, 4) 0 + 0; game 5 waits for game 6; finishing order
    # does not matter.
    scores = {4: 0.0, 2: 0.5, 5: 1.0, 1: 1.0, 3: 0.0}
    assert pentanomial(scores) == [1, 0, 0, 1, 0]
    assert trinomial(scores) == [2, 1, 2]
    stats = match_stats(scores)
    assert (stats.wins, stats.draws, stats.losses) == (2, 1, 2)
    assert stats.estimate.model == "pentanomial" and stats.estimate.samples == 2


def test_single_games_until_the_first_pair_is_complete() -> None:
    stats = match_stats({1: 1.0})
    assert stats.estimate.model == "trinomial" and stats.estimate.samples == 1
    assert stats.llr is None and stats.pairs == [0, 0, 0, 0, 0]


def _counts(samples: int, cells: int) -> list[list[int]]:
    """Every way to spread `samples` over `cells` counts."""
    if cells == 1:
        return [[samples]]
    return [[k, *rest] for k in range(samples + 1) for rest in _counts(samples - k, cells - 1)]


# Every sample of up to 5 pairs, and of up to 8 single games.
SMALL = [(c, "pentanomial") for n in range(1, 6) for c in _counts(n, 5)] + [
    (c, "trinomial") for n in range(1, 9) for c in _counts(n, 3)
]


def test_a_better_result_never_gives_a_weaker_claim() -> None:
    """Any pair (or game) scoring one step more never lowers an end of the interval or the LOS:
    five won pairs claim more than four and a won-drawn pair, which claim more than four and a
    split pair. Sweeps included: one method gives every figure."""
    found = {(tuple(c), model): estimate(c, model) for c, model in SMALL}
    for (counts, model), before in found.items():
        for k in range(len(counts) - 1):
            if counts[k]:
                better = list(counts)
                better[k] -= 1
                better[k + 1] += 1
                after = found[(tuple(better), model)]
                assert after.score_low >= before.score_low - 1e-12, (counts, better)
                assert after.score_high >= before.score_high - 1e-12, (counts, better)
                assert after.los >= before.los - 1e-12, (counts, better)
    five = estimate([0, 0, 0, 0, 5], "pentanomial")
    assert five.elo_low > estimate([0, 0, 0, 1, 4], "pentanomial").elo_low


def test_the_interval_says_what_the_los_says() -> None:
    """Each end of the 95% interval is a one-sided bound at 97.5%, read on the same likelihood
    as the LOS: the interval lies above 0 Elo exactly when the LOS is above 97.5%, below it
    exactly when the LOS is under 2.5%."""
    for counts, model in SMALL:
        found = estimate(counts, model)
        if abs(found.los - 0.975) > 1e-9 and abs(found.los - 0.025) > 1e-9:
            assert (found.score_low > 0.5) == (found.los > 0.975), counts
            assert (found.score_high < 0.5) == (found.los < 0.025), counts
    # Two won pairs: LOS 95%, so 0 Elo is inside the 95% interval (not "at least -216").
    two = estimate([0, 0, 0, 0, 2], "pentanomial")
    assert 0.95 < two.los < 0.975 and two.elo_low < 0 < two.elo_high
