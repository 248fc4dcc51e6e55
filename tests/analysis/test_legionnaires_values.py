"""Legionnaires game values: the paper's small numbers, and the values checked against plain
game-tree search with the game's own rules."""

from __future__ import annotations

import argparse
import io
import json
import random
from functools import cache

import pytest
from rich.console import Console

from bots.solvers.legionnaires import reachable_positions
from protocols.base import Side
from protocols.legionnaires.options import LegionnairesOptions
from protocols.legionnaires.rules import GAME, LegionnairesState, position
from referee import EXIT_OK, EXIT_USAGE
from referee.analysis import legionnaires_command
from referee.analysis.atomic_weight import atomic_weight
from referee.analysis.cgt_notation import outcome_class, render
from referee.analysis.legionnaires import (
    Request,
    TooManyPositions,
    make_request,
    request_from_args,
    value,
)
from referee.analysis.legionnaires_layouts import LAYOUTS


def valued(name: str) -> tuple[str, int]:
    layout = LAYOUTS[name]
    request = request_from_args(width=None, height=None, blue=None, orange=None, layout=name)
    assert (request.width, request.height) == (layout.width, layout.height)
    found = value(request)
    return render(found.game), found.positions


@pytest.mark.parametrize("name", ["start-2x2", "start-3x2", "start-3x3", "start-4x4", "start-5x5"])
def test_the_papers_start_positions(name: str) -> None:
    layout = LAYOUTS[name]
    shown, positions = valued(name)
    assert positions == layout.paper_positions
    if layout.paper_value is not None:
        assert shown == layout.paper_value
    # The count is the same one the position counter finds by its own walk.
    options = LegionnairesOptions(
        width=layout.width, height=layout.height, blue=layout.blue, orange=layout.orange
    )
    assert positions == reachable_positions(options)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_the_impartial_3xn_sequence(n: int) -> None:
    # The paper: 0, *, *, *, +-(*,^), +-(*,^) for n = 1..6 (6 takes seconds: the script does it).
    shown, _ = valued(f"rows-{n}")
    assert shown == ["0", "*", "*", "*", "+-{*,^}"][n - 1]


def test_the_impartial_two_also_fits_the_papers_2x3_start() -> None:
    # Two pawns a side on a board 2 wide and 3 high: 4 pawns, 35 positions, *.
    assert valued("rows-2") == ("*", 35)


def test_a_position_of_value_star_two() -> None:
    assert valued("star2") == ("*2", 8)


def test_fig10_as_read_here() -> None:
    # n White pawns, an empty row, one Black pawn: 0 and v agree with the paper; n = 3 gives
    # vv* where the paper prints v* (docs/analysis/legionnaires.md).
    assert [valued(f"fig10-{n}")[0] for n in (1, 2, 3)] == ["0", "v", "vv*"]


def weighed(name: str) -> str | None:
    request = request_from_args(width=None, height=None, blue=None, orange=None, layout=name)
    found = atomic_weight(value(request).game)
    return None if found is None else render(found)


def test_atomic_weights_of_the_papers_families() -> None:
    # Impartial positions weigh 0 (every nimber does); Fig. 10 as read here: 0, v, vv*, ...
    assert [weighed(f"rows-{n}") for n in (1, 2, 3, 4, 5)] == ["0"] * 5
    assert weighed("star2") == "0"
    assert [weighed(f"fig10-{n}") for n in (1, 2, 3, 4, 5)] == ["0", "-1", "-2", "-2", "-1"]
    # The 4x4 start is infinitesimal but not all-small: no atomic weight.
    assert weighed("start-4x4") is None


def test_separate_blocks_add_up() -> None:
    # ups-k is k copies of rows-1+1 (value ^) that never meet: k.^, weight k, and 9^k positions
    # (each block reaches 9 positions of its own).
    from pycgt import UP, multiple

    for count in (1, 2, 3, 4):
        request = request_from_args(
            width=None, height=None, blue=None, orange=None, layout=f"ups-{count}"
        )
        found = value(request)
        assert found.game == multiple(UP, count)
        assert found.positions == 9**count
        assert weighed(f"ups-{count}") == str(count)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_extra_orange_pawns_weigh_one_each_up_to_two(n: int) -> None:
    # Measured (docs/analysis/legionnaires.md): k extra orange pawns weigh k for k = 1, 2; a
    # third adds nothing for n = 1..3 and half a unit for n = 4.
    assert [weighed(f"rows-{n}+{k}") for k in (1, 2, 3)] == ["1", "2", "5/2" if n == 4 else "2"]


@pytest.mark.parametrize("name", ["rows-1+2", "rows-2+2", "rows-3+2", "fig10-3", "fig10-4"])
def test_the_two_ahead_rule_on_the_board(name: str) -> None:
    # A weight of 2 or more wins for orange whoever starts, -2 or less for blue: checked by
    # plain game-tree search with the game's own rules, without pycgt.
    weight = weighed(name)
    assert weight in ("2", "-2")
    layout = LAYOUTS[name]
    blue, orange = layout.blue.split(), layout.orange.split()
    size = {"width": layout.width, "height": layout.height}
    blue_first = to_move_wins(position(blue, orange, **size))
    orange_first = to_move_wins(position(blue, orange, to_move=Side.ORANGE, **size))
    assert (blue_first, orange_first) == ((False, True) if weight == "2" else (True, False))


@cache
def to_move_wins(state: LegionnairesState) -> bool:
    """Plain game-tree search with the game's own rules: does the player to move win?"""
    return any(not to_move_wins(GAME.apply(state, move)) for move in GAME.legal_moves(state))


def random_position(rng: random.Random) -> tuple[int, int, list[str], list[str]]:
    width, height = rng.randint(2, 4), rng.randint(2, 4)
    squares = [f"{chr(97 + x)}{y + 1}" for x in range(width) for y in range(height)]
    rng.shuffle(squares)
    blue_count = rng.randint(1, 3)
    orange_count = rng.randint(1, 3)
    return width, height, squares[:blue_count], squares[blue_count : blue_count + orange_count]


def test_outcome_classes_agree_with_game_tree_search() -> None:
    rng = random.Random(4341)
    seen = set()
    for _ in range(300):
        width, height, blue, orange = random_position(rng)
        found = value(make_request(width, height, tuple(blue), tuple(orange)))
        blue_first = to_move_wins(position(blue, orange, width=width, height=height))
        orange_first = to_move_wins(
            position(blue, orange, to_move=Side.ORANGE, width=width, height=height)
        )
        # Left is orange: L means orange wins whoever starts, and so on.
        expected = {
            (True, True): "N",
            (False, False): "P",
            (False, True): "L",
            (True, False): "R",
        }[(blue_first, orange_first)]
        assert outcome_class(found.game)[0] == expected, (width, height, blue, orange)
        seen.add(expected)
    assert seen == {"N", "P", "L", "R"}  # the sample reaches every outcome class


def mirrored(square: str, height: int) -> str:
    return f"{square[0]}{height + 1 - int(square[1:])}"


def test_swapping_colours_and_flipping_the_board_negates_the_value() -> None:
    rng = random.Random(19)
    for _ in range(60):
        width, height, blue, orange = random_position(rng)
        found = value(make_request(width, height, tuple(blue), tuple(orange))).game
        swapped = make_request(
            width,
            height,
            tuple(mirrored(s, height) for s in orange),
            tuple(mirrored(s, height) for s in blue),
        )
        assert value(swapped).game == -found


def test_positions_are_counted_once_and_the_search_can_be_bounded() -> None:
    request = request_from_args(width=None, height=None, blue=None, orange=None, layout="rows-4")
    with pytest.raises(TooManyPositions):
        value(request, max_positions=100)
    seen: list[int] = []
    found = value(request, on_progress=seen.append)
    assert found.positions == 2965
    assert seen and seen == sorted(seen) and seen[-1] <= found.positions


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"blue": "a1", "orange": "z9"}, "'z9' is not a square of the 8x8 board"),
        ({"blue": "a1 a1", "orange": "b2"}, "blue lists a square twice"),
        ({"blue": "a1 b2", "orange": "b2"}, "both have a pawn on b2"),
        ({"width": 30, "blue": "a1", "orange": "b2"}, "width must be 1..26"),
        ({"blue": "a1"}, "give --blue and --orange"),
        ({"layout": "nope"}, "no layout 'nope'"),
        ({"layout": "rows-2", "blue": "a1"}, "either --layout or the board"),
    ],
)
def test_bad_requests_say_what_is_wrong(arguments: dict[str, object], message: str) -> None:
    given: dict[str, object] = {
        "width": None,
        "height": None,
        "blue": None,
        "orange": None,
        "layout": None,
    }
    given.update(arguments)
    with pytest.raises(ValueError, match=message):
        request_from_args(**given)  # type: ignore[arg-type]


def run(*argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    legionnaires_command.register(parser)
    args = parser.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    code = args.analyse(args, Console(file=out, width=200), Console(file=err, width=200))
    return code, out.getvalue(), err.getvalue()


def test_the_command_prints_json() -> None:
    code, out, err = run(
        "--width", "3", "--height", "3", "--blue", "a1 c1", "--orange", "a3,c3", "--json"
    )
    assert code == EXIT_OK and err == ""
    found = json.loads(out)
    assert found["value"] == "*"
    assert found["explicit"] == "{0|0}"
    assert found["positions"] == 35
    assert found["outcome"] == "N"
    assert (found["left_stop"], found["right_stop"], found["temperature"]) == ("0", "0", "0")
    assert found["birthday"] == 1
    assert found["atomic_weight"] == "0"
    code, out, err = run("--layout", "start-4x4", "--json")
    assert code == EXIT_OK and err == ""
    assert json.loads(out)["atomic_weight"] is None


def test_the_command_prints_text_and_the_papers_figures() -> None:
    code, out, _ = run("--layout", "rows-5")
    assert code == EXIT_OK
    assert "value      +-{*,^}" in out
    assert "positions  25,378" in out
    assert "paper      value +-{*,^}" in out
    assert "atomic wt  0" in out
    code, out, _ = run("--layout", "rows-1+2")
    assert code == EXIT_OK
    assert "value      ^^*" in out and "atomic wt  2" in out
    code, out, _ = run("--layout", "start-4x4")
    assert "atomic wt  none: the value is not all-small" in out


def test_the_command_refuses_bad_input_with_a_usage_error() -> None:
    code, out, err = run("--blue", "a1", "--orange", "a1")
    assert code == EXIT_USAGE and out == ""
    assert "both have a pawn on a1" in err
    code, _, err = run("--layout", "rows-6", "--max-positions", "1000")
    assert code == EXIT_USAGE and "more than 1,000 positions" in err


def test_the_command_lists_its_layouts() -> None:
    code, out, _ = run("--list-layouts", "--json")
    listed = json.loads(out)
    assert code == EXIT_OK and set(listed) == set(LAYOUTS)
    assert listed["start-5x5"]["paper_positions"] == 14_789


def test_a_request_keeps_its_squares() -> None:
    assert make_request(2, 2, ("a1",), ("b2",)) == Request(2, 2, ("a1",), ("b2",))


def test_the_larger_starts_are_infinitesimal_but_not_all_small() -> None:
    # Both stops 0 (no number to gain), yet not all-small: somewhere one side has a move the
    # other lacks. Each start is its own negative, so its mean is 0.
    from pycgt import is_all_small, is_infinitesimal

    for name in ("start-4x4", "start-5x5"):
        request = request_from_args(width=None, height=None, blue=None, orange=None, layout=name)
        game = value(request).game
        assert is_infinitesimal(game) and not is_all_small(game)
        assert game == -game
