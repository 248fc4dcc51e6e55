"""Ratings on constructed results, against values computed by hand.

Hand values: for two players Davidson's model gives pi_A / pi_B = W / L whatever the draws,
so the gap is 400 log10(W / L) Elo and the draw parameter nu = D / sqrt(W L). Without draws
the variance of the fitted gap (natural units) is 1 / (N p (1 - p)) with p = W / N.
"""

from __future__ import annotations

import math

import pytest

from protocols.base import Reason, Side
from referee.stats.ratings import ELO_PER_UNIT, fit_ratings
from referee.tournament.standings import GameResult


def wins(winner: str, loser: str, times: int) -> list[GameResult]:
    return [GameResult(winner, loser, Side.BLUE, Reason.NO_LEGAL_MOVE)] * times


def draws(a: str, b: str, times: int) -> list[GameResult]:
    return [GameResult(a, b, None, Reason.REPETITION)] * times


def test_two_players_without_draws() -> None:
    ratings = fit_ratings(["A", "B"], wins("A", "B", 3) + wins("B", "A", 1), anchor="B")
    a, b = ratings.by_name()["A"], ratings.by_name()["B"]
    assert a.elo == pytest.approx(400 * math.log10(3))  # 190.85
    assert (b.elo, b.low, b.high) == (0.0, 0.0, 0.0)
    half_width = 1.959964 * math.sqrt(1 / (4 * 0.75 * 0.25)) * 400 / math.log(10)  # 393.16
    assert a.high - a.elo == pytest.approx(half_width, rel=1e-6)
    assert a.elo - a.low == pytest.approx(half_width, rel=1e-6)
    assert ratings.method == "maximum likelihood" and ratings.draw_parameter == 0.0


def test_draws_do_not_move_the_gap_between_two_players() -> None:
    results = wins("A", "B", 3) + wins("B", "A", 1) + draws("A", "B", 2)
    ratings = fit_ratings(["A", "B"], results)
    a, b = ratings.by_name()["A"], ratings.by_name()["B"]
    assert a.elo == pytest.approx(200 * math.log10(3))  # anchored at the mean
    assert b.elo == pytest.approx(-200 * math.log10(3))
    assert ratings.draw_parameter == pytest.approx(2 / math.sqrt(3))
    assert ratings.anchor == "mean"


def test_a_chain_splits_into_independent_pairs() -> None:
    results = wins("A", "B", 2) + wins("B", "A", 1) + wins("B", "C", 3) + wins("C", "B", 1)
    ratings = fit_ratings(["A", "B", "C"], results, anchor="C").by_name()
    assert ratings["B"].elo == pytest.approx(400 * math.log10(3))
    assert ratings["A"].elo == pytest.approx(400 * math.log10(6))


def test_a_balanced_cycle_rates_everybody_equal() -> None:
    results = wins("A", "B", 2) + wins("B", "C", 2) + wins("C", "A", 2) + draws("A", "C", 1)
    ratings = fit_ratings(["A", "B", "C"], results)
    for rating in ratings.ratings:
        assert rating.elo == pytest.approx(0.0, abs=1e-6)
    widths = {round(r.high - r.low, 6) for r in ratings.ratings if r.name != "B"}
    assert len(widths) == 1  # A and C are symmetric


def test_a_player_who_lost_everything_gets_a_finite_rating_from_the_prior() -> None:
    results = wins("A", "B", 2) + wins("B", "A", 2) + wins("A", "Z", 2) + wins("B", "Z", 2)
    ratings = fit_ratings(["A", "B", "Z", "new"], results)
    by_name = ratings.by_name()
    assert "prior" in ratings.method
    assert by_name["Z"].elo is not None and by_name["A"].elo is not None
    assert by_name["Z"].elo < by_name["A"].elo - 300
    assert by_name["A"].elo == pytest.approx(by_name["B"].elo)
    assert by_name["new"].elo is None and by_name["new"].games == 0
    assert [r.name for r in ratings.ratings][-1] == "new"


def test_double_forfeits_are_not_rated_and_anchors_are_checked() -> None:
    forfeit = [GameResult("A", "B", None, Reason.CRASH)]
    ratings = fit_ratings(["A", "B"], forfeit + wins("A", "B", 1) + wins("B", "A", 1), "A")
    assert ratings.by_name()["B"].elo == pytest.approx(0.0, abs=1e-9)
    assert ratings.by_name()["A"].games == 2
    with pytest.raises(ValueError, match="not one of the players"):
        fit_ratings(["A", "B"], [], anchor="C")
    assert pytest.approx(173.717792) == ELO_PER_UNIT


def test_draws_with_a_player_who_never_won_give_finite_ratings() -> None:
    # Greedy beat random; the other two games were draws. Random never won: with draws in the
    # model its rating has no finite maximum, so the weak prior keeps every rating finite.
    results = [
        GameResult("greedy", "random", Side.BLUE, Reason.GAME_ENDING),
        GameResult("search", "greedy", None, Reason.GAME_ENDING),
        GameResult("random", "search", None, Reason.GAME_ENDING),
    ]
    ratings = fit_ratings(["greedy", "search", "random"], results)
    assert ratings.method.startswith("maximum a posteriori")
    by_name = ratings.by_name()
    assert by_name["greedy"].elo is not None and by_name["random"].elo is not None
    assert by_name["greedy"].elo > by_name["random"].elo
    for rating in ratings.ratings:
        assert rating.elo is not None and abs(rating.elo) < 5000
        assert rating.low is not None and rating.high is not None and rating.low < rating.high
