"""A tournament's results as the rating model's input (`referee.tournament.rating`): blue moves
first, double forfeits are left out, entered players without a game are `alone`, and the anchor
holds a player where it is asked. Hand values: with each player first in half the games and no
draws, the gap is 400 log10(wins / losses) exactly (docs/ratings.md)."""

from __future__ import annotations

import math

import pytest
from scipy.stats import chi2

from protocols.base import Reason, Side
from referee.stats.rating import Anchor, RatingOptions
from referee.tournament.rating import (
    difference_words,
    rate_results,
    rating_difference,
    results_input,
)
from referee.tournament.standings import GameResult
from referee.tournament.store import GameRow, GameState


def won(blue: str, orange: str, winner: Side | None, times: int = 1) -> list[GameResult]:
    return [GameResult(blue, orange, winner, Reason.GAME_ENDING)] * times


def test_the_gap_between_two_players_is_400_log10_of_wins_over_losses() -> None:
    # A wins 3 of 4 in each colour: 6 wins, 2 losses.
    results = won("A", "B", Side.BLUE, 3) + won("A", "B", Side.ORANGE, 1)
    results += won("B", "A", Side.ORANGE, 3) + won("B", "A", Side.BLUE, 1)
    table = rate_results(["A", "B"], results, "alak", RatingOptions(anchor=Anchor(0.0, "B")))
    by_name = table.by_name()
    assert by_name["A"].rating == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert by_name["B"].rating == pytest.approx(0.0, abs=1e-9)
    assert table.kinds[0].advantage == pytest.approx(0.0, abs=1e-6)


def test_double_forfeits_are_left_out_and_a_player_without_games_is_alone() -> None:
    results = [GameResult("A", "B", None, Reason.CRASH), *won("A", "B", Side.BLUE)]
    data = results_input(["A", "B", "new"], results, "alak")
    assert data.players == ["A", "B", "new"]
    assert data.cells().counts.tolist() == [[1.0, 0.0, 0.0]]  # the one game A won moving first
    table = rate_results(["A", "B", "new"], results, "alak")
    assert table.by_name()["new"].flags == ["alone"]
    assert table.by_name()["A"].games == 1
    with pytest.raises(ValueError, match="not one of the players"):
        rate_results(["A", "B"], results, "alak", RatingOptions(anchor=Anchor(0.0, "C")))


def _row(number: int, blue: str, orange: str, winner: Side) -> GameRow:
    return GameRow(number, 1, blue, orange, number, GameState.FINISHED, 1, 0, winner,
                   Reason.GAME_ENDING, "", None, 9, None, None, None)  # fmt: skip


def test_a_swept_match_has_a_one_sided_model_difference() -> None:
    # greedy won all 30 games, 15 in each colour: the difference has a lower bound only, where
    # 30 log F(D) falls by chi2(1, 95%)/2 (the advantage is 0 by symmetry).
    rows = [_row(n, "greedy", "loser", Side.BLUE) for n in range(1, 16)]
    rows += [_row(n, "loser", "greedy", Side.ORANGE) for n in range(16, 31)]
    line = rating_difference("greedy", "loser", rows, "alak")
    q = math.exp(-chi2.ppf(0.95, 1) / 2 / 30)
    assert (line.side, line.high, line.flags) == ("lower", None, ["unbeaten"])
    assert line.low == pytest.approx(400 * math.log10(q / (1 - q)), abs=1e-3)
    assert line.rating is not None and line.rating > line.low
    words = difference_words(line, "greedy", "loser")
    assert f"every game won (unbeaten), at least {line.low:+.0f} Elo" in words


def test_the_standings_and_the_ratings_table_round_the_same_figure_once() -> None:
    """1968.54 is +1969 in both tables (not 1968.5 rounded again, half to even, to +1968)."""
    from referee.stats.rating_table import RatingLine
    from referee.tournament.report import _standing_row
    from referee.tournament.standings import Standing
    from referee.views.rating import interval_text, signed
    from referee.views.tournament import elo_cells

    line = RatingLine(
        name="ann", rank=1, rating=1968.54, low=1495.46, high=None, side="lower",
        method="likelihood", games=18, points=18.0, flags=["unbeaten"], component=0,
        los_next=None,
    )  # fmt: skip
    row = _standing_row(Standing("ann", rank=1, games=18, wins=18, points=36), line)
    elo, interval = elo_cells(row)
    assert elo == signed(1968.54) == "+1969"
    assert interval == f"{interval_text(line)} unbeaten" == ">= +1495 unbeaten"
