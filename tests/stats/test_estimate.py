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
    ours = estimate([0, 0, 30], "trinomial")
    assert ours.score_low == pytest.approx(0.05 ** (1 / 30))
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
