"""Lielow rules: start position, perft, the `off` move, the crown, king loss and the wire format."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from protocols import get_game
from protocols.base import BadSyntax, IllegalMove, Reason, Side
from protocols.lielow.options import LielowOptions
from protocols.lielow.rules import GAME, LielowState
from scripts.perft import perft

START = GAME.initial_state()


def play(state: LielowState, *lines: str) -> LielowState:
    """Apply wire lines one after another, each judged by parse_move first."""
    for line in lines:
        state = GAME.apply(state, GAME.parse_move(state, line))
    return state


def lines(state: LielowState) -> set[str]:
    return {GAME.format_move(m) for m in GAME.legal_moves(state)}


def targets(state: LielowState, square: str) -> set[str]:
    """Where the stack on `square` may go (`off` included), in the side to move's moves."""
    return {line.split()[1] for line in lines(state) if line.split()[0] == square}


def kings(state: LielowState) -> dict[str, str | None]:
    result: dict[str, str | None] = dict(GAME.state_json(state)["kings"])
    return result


# Start position and perft.


def test_registry_returns_this_module() -> None:
    assert get_game("lielow") is GAME


def test_start_has_46_moves_for_blue() -> None:
    assert START.to_move is Side.BLUE
    moves = GAME.legal_moves(START)
    assert len(moves) == 46
    assert len(set(moves)) == 46
    assert all(GAME.state_json(START)["kings"][side] is None for side in ("blue", "orange"))


@pytest.mark.parametrize(("depth", "leaves"), [(1, 46), (2, 2_116)])
def test_perft_shallow(depth: int, leaves: int) -> None:
    assert perft(GAME, START, depth) == leaves


def test_perft_depth_3() -> None:
    assert perft(GAME, START, 3) == 97_520


def test_off_at_the_start() -> None:
    for line in ("a2 off", "h2 off"):
        move = GAME.parse_move(START, line)
        assert GAME.format_move(move) == line
        assert move in GAME.legal_moves(START)
    with pytest.raises(IllegalMove) as info:
        GAME.parse_move(START, "b2 off")
    assert not isinstance(info.value, BadSyntax)
    assert "cannot leave the board" in info.value.reason
    with pytest.raises(IllegalMove) as info:
        GAME.parse_move(START, "b2 c2")
    assert not isinstance(info.value, BadSyntax)
    assert "own stack" in info.value.reason


def test_off_is_one_move_per_stack() -> None:
    # A corner stack of height 1 leaves the board in five directions: still one `a1 off` line.
    state = GAME.state_from_stacks({"a1": ("blue", 1), "h8": ("orange", 1)})
    assert sorted(lines(state)) == ["a1 a2", "a1 b1", "a1 b2", "a1 off"]


def test_off_removes_the_stack() -> None:
    state = play(START, "a2 off")
    assert "a2" not in {s["square"] for s in GAME.state_json(state)["stacks"]}
    assert sum(1 for s in GAME.state_json(state)["stacks"] if s["owner"] == "blue") == 7
    assert GAME.outcome(state) is None
    assert kings(state) == {"blue": None, "orange": None}


# The crown.


def test_first_king_and_its_targets_after_any_reply() -> None:
    state = play(START, "e2 e3")
    assert kings(state) == {"blue": "e3", "orange": None}
    e3 = next(s for s in GAME.state_json(state)["stacks"] if s["square"] == "e3")
    assert e3 == {"square": "e3", "owner": "blue", "height": 2, "king": True}
    expected = {"e5", "c5", "g5", "c3", "g3", "e1", "c1", "g1"}
    replies = GAME.legal_moves(state)
    assert len(replies) == 46
    for reply in replies:
        after = GAME.apply(state, reply)
        assert kings(after)["blue"] == "e3"
        assert targets(after, "e3") == expected, GAME.format_move(reply)


def test_no_king_until_a_unique_tallest_stack() -> None:
    state = play(START, "a2 off", "a7 a6")
    assert kings(state) == {"blue": None, "orange": "a6"}
    state = play(state, "h2 off")
    assert kings(state) == {"blue": None, "orange": "a6"}
    # Two equally tall stacks and no king: the player stays without one.
    tied = GAME.state_from_stacks(
        {"b3": ("blue", 2), "g3": ("blue", 2), "d2": ("blue", 1), "d7": ("orange", 1)}
    )
    assert kings(tied)["blue"] is None
    assert kings(play(tied, "d2 c1"))["blue"] is None
    assert kings(play(tied, "d2 d3"))["blue"] is None
    assert kings(play(tied, "b3 b5"))["blue"] == "b5"


def test_shared_tallest_keeps_the_crown_where_it_was() -> None:
    state = play(START, "e2 e3", "a7 a6", "d2 d3")
    assert kings(state) == {"blue": "e3", "orange": "a6"}
    state = play(state, "h7 h6")
    # Orange's two height-2 stacks tie: the crown stays on a6.
    assert kings(state) == {"blue": "e3", "orange": "a6"}


def test_crown_travels_with_a_shorter_king_while_the_tallest_is_shared() -> None:
    state = GAME.state_from_stacks(
        {"d4": ("blue", 1), "a1": ("blue", 3), "h1": ("blue", 3), "d8": ("orange", 1)},
        kings={"blue": "d4"},
    )
    after = play(state, "d4 e5")
    assert kings(after)["blue"] == "e5"  # height 2 now, still below the two height-3 stacks
    assert GAME.outcome(after) is None


def test_capture_breaking_the_victims_tie_moves_its_crown_at_once() -> None:
    # Orange's king is a short stack; its two tallest stacks tie. Blue captures one of them.
    state = GAME.state_from_stacks(
        {
            "d5": ("orange", 1),
            "a8": ("orange", 3),
            "h8": ("orange", 3),
            "g7": ("blue", 1),
            "a1": ("blue", 2),
        },
        kings={"orange": "d5"},
    )
    assert kings(state) == {"blue": "a1", "orange": "d5"}
    after = play(state, "g7 h8")
    assert GAME.outcome(after) is None
    assert kings(after) == {"blue": "a1", "orange": "a8"}


def test_capturing_the_crowned_one_of_two_tallest_stacks_loses() -> None:
    state = GAME.state_from_stacks(
        {"a8": ("orange", 3), "h8": ("orange", 3), "g7": ("blue", 1), "a1": ("blue", 2)},
        kings={"orange": "h8"},
    )
    after = play(state, "g7 h8")
    outcome = GAME.outcome(after)
    assert outcome is not None
    assert (outcome.winner, outcome.reason, outcome.ending) == (
        Side.BLUE,
        Reason.GAME_ENDING,
        "king-lost",
    )
    assert kings(after)["orange"] is None  # a8 is uniquely tallest now, but too late


def test_king_that_captures_and_drops_hands_the_crown_on() -> None:
    state = GAME.state_from_stacks(
        {"e4": ("blue", 3), "a1": ("blue", 2), "e7": ("orange", 1), "h8": ("orange", 2)}
    )
    assert kings(state) == {"blue": "e4", "orange": "h8"}
    after = play(state, "e4 e7")
    assert kings(after) == {"blue": "a1", "orange": "h8"}
    # With two stacks tied above it, the height-1 king keeps the crown.
    tied = GAME.state_from_stacks(
        {
            "e4": ("blue", 3),
            "a1": ("blue", 2),
            "h1": ("blue", 2),
            "e7": ("orange", 1),
            "h8": ("orange", 2),
        }
    )
    assert kings(play(tied, "e4 e7"))["blue"] == "e7"


def test_capture_by_a_non_king_checks_the_movers_crown_too() -> None:
    # Blue's king a1 (height 3) is tallest; a height-2 stack captures and drops to 1: no change.
    state = GAME.state_from_stacks(
        {"a1": ("blue", 3), "c3": ("blue", 2), "c5": ("orange", 1), "h8": ("orange", 2)}
    )
    after = play(state, "c3 c5")
    assert kings(after) == {"blue": "a1", "orange": "h8"}


def test_moving_own_king_off_the_board_loses() -> None:
    state = play(START, "a2 a3", "h7 h6")
    assert kings(state) == {"blue": "a3", "orange": "h6"}
    assert "off" in targets(state, "a3")
    after = play(state, "a3 off")
    outcome = GAME.outcome(after)
    assert outcome is not None
    assert (outcome.winner, outcome.reason, outcome.ending) == (
        Side.ORANGE,
        Reason.GAME_ENDING,
        "king-lost",
    )
    assert "off the board" in outcome.detail
    assert GAME.legal_moves(after) == ()


def test_moving_another_stack_off_does_not_lose() -> None:
    state = play(START, "a2 a3", "h7 h6", "h2 off")
    assert GAME.outcome(state) is None
    assert kings(state)["blue"] == "a3"


def test_capturing_the_king_ends_the_game_at_once() -> None:
    state = GAME.state_from_stacks(
        {"d4": ("blue", 1), "a1": ("blue", 2), "d5": ("orange", 2), "a7": ("orange", 1)},
        to_move=Side.ORANGE,
    )
    state = play(state, "a7 a6")  # orange moves something else; d5 stays its king
    assert kings(state) == {"blue": "a1", "orange": "d5"}
    after = play(state, "d4 d5")
    outcome = GAME.outcome(after)
    assert outcome is not None
    assert (outcome.winner, outcome.reason, outcome.ending) == (
        Side.BLUE,
        Reason.GAME_ENDING,
        "king-lost",
    )
    assert "captured orange's king" in outcome.detail
    assert GAME.legal_moves(after) == ()
    with pytest.raises(IllegalMove) as info:
        GAME.parse_move(after, "a6 a5")
    assert "game is over" in info.value.reason


def test_king_lost_perft_has_no_moves_below() -> None:
    state = play(START, "a2 a3", "h7 h6", "a3 off")
    assert perft(GAME, state, 1) == 0
    assert perft(GAME, state, 3) == 0


# Movement.


def test_capture_removes_the_enemy_and_leaves_height_one() -> None:
    state = GAME.state_from_stacks({"c3": ("blue", 2), "c5": ("orange", 3), "h8": ("orange", 1)})
    after = play(state, "c3 c5")
    stacks = {s["square"]: (s["owner"], s["height"]) for s in GAME.state_json(after)["stacks"]}
    assert stacks == {"c5": ("blue", 1), "h8": ("orange", 1)}


def test_stacks_jump_over_anything() -> None:
    state = GAME.state_from_stacks(
        {"a1": ("blue", 3), "b2": ("blue", 1), "c3": ("orange", 1), "h8": ("orange", 1)}
    )
    assert "d4" in targets(state, "a1")
    after = play(state, "a1 d4")
    assert any(s["square"] == "d4" and s["height"] == 4 for s in GAME.state_json(after)["stacks"])


def test_height_eight_can_only_leave() -> None:
    grow = GAME.state_from_stacks({"a1": ("blue", 7), "h2": ("orange", 1)})
    tall = play(grow, "a1 h8", "h2 h1")
    assert targets(tall, "h8") == {"off"}


def test_rejected_lines_have_specific_reasons() -> None:
    state = play(START, "e2 e3", "a7 a6")
    cases = {
        "e4 e5": "no stack on e4",
        "a6 a5": "orange's, not blue's",
        "e3 e4": "exactly 2 squares, not 1",
        "e3 f5": "straight line",
        "e3 e3": "must move away",
        "d2 e3": "own stack",
        "e3 off": "cannot leave the board",
    }
    for line, fragment in cases.items():
        with pytest.raises(IllegalMove) as info:
            GAME.parse_move(state, line)
        assert not isinstance(info.value, BadSyntax), line
        assert fragment in info.value.reason, (line, info.value.reason)
        assert info.value.reason.startswith(line), info.value.reason


@pytest.mark.parametrize(
    "line", ["", "  \r", "e2", "e2 e3 e4", "E2 e3", "e2 E3", "e2 i3", "e9 e3", "off e3", "e2 OFF"]
)
def test_bad_syntax(line: str) -> None:
    with pytest.raises(BadSyntax) as info:
        GAME.parse_move(START, line)
    assert info.value.reason.strip()


def test_parse_tolerates_whitespace_and_returns_the_generated_move() -> None:
    move = GAME.parse_move(START, "\t e2   e3 \r")
    assert GAME.format_move(move) == "e2 e3"
    assert move in GAME.legal_moves(START)
    assert GAME.parse_move(START, "a2 off") in GAME.legal_moves(START)


# Other endings, options and views.


def test_player_without_stacks_has_no_legal_move_and_loses() -> None:
    state = GAME.state_from_stacks({"d4": ("blue", 1)}, to_move=Side.ORANGE)
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (Side.BLUE, Reason.NO_LEGAL_MOVE)
    assert GAME.legal_moves(state) == []


def test_ply_limit_draw_and_king_loss_first() -> None:
    options = LielowOptions(ply_limit=3)
    state = play(GAME.initial_state(options), "a2 a3", "h7 h6")
    assert GAME.outcome(state) is None
    drawn = play(state, "b2 b3")
    outcome = GAME.outcome(drawn)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (None, Reason.PLY_LIMIT)
    assert GAME.legal_moves(drawn) == ()
    # A king lost on the last ply before the cap is a win, not a draw.
    lost = play(state, "a3 off")
    outcome = GAME.outcome(lost)
    assert outcome is not None
    assert (outcome.reason, outcome.ending) == (Reason.GAME_ENDING, "king-lost")


def test_ply_limit_zero_disables_the_cap() -> None:
    state = GAME.state_from_stacks(
        {"a2": ("blue", 1), "h7": ("orange", 1)}, ply=10_000, options=LielowOptions(ply_limit=0)
    )
    assert GAME.outcome(state) is None
    assert GAME.legal_moves(state)


def test_options_validation() -> None:
    assert GAME.parse_options(None) == LielowOptions()
    assert GAME.parse_options({"ply_limit": 0}).ply_limit == 0
    with pytest.raises(ValidationError):
        GAME.parse_options({"ply_limit": -1})
    with pytest.raises(ValidationError):
        GAME.parse_options({"draw_after": 5})


def test_state_from_stacks_rejects_bad_positions() -> None:
    with pytest.raises(ValueError, match="not a square"):
        GAME.state_from_stacks({"i1": ("blue", 1)})
    with pytest.raises(ValueError, match="height"):
        GAME.state_from_stacks({"a1": ("blue", 9)})
    with pytest.raises(ValueError, match="king"):
        GAME.state_from_stacks({"a1": ("blue", 1), "a8": ("orange", 1)}, kings={"blue": "a8"})
    with pytest.raises(ValueError):
        GAME.state_from_stacks({"a1": ("green", 1)})
    # A unique tallest stack always wears the crown, so a king elsewhere cannot arise.
    with pytest.raises(ValueError, match="unique tallest"):
        GAME.state_from_stacks({"a1": ("blue", 2), "b1": ("blue", 1)}, kings={"blue": "b1"})
    with pytest.raises(ValueError, match="unique tallest"):
        GAME.state_from_stacks({"a1": ("blue", 2)}, kings={"blue": None})
    tied = {"a1": ("blue", 2), "h1": ("blue", 2), "d4": ("blue", 1)}
    assert kings(GAME.state_from_stacks(tied))["blue"] is None
    assert kings(GAME.state_from_stacks(tied, kings={"blue": "d4"}))["blue"] == "d4"


def test_views() -> None:
    state = play(START, "e2 e3")
    data = GAME.state_json(state)
    assert json.loads(json.dumps(data)) == data
    assert data["to_move"] == "orange" and data["ply"] == 1
    assert len(data["stacks"]) == 16
    text = GAME.render_text(state)
    rows = text.splitlines()
    assert rows[0].split() == list("abcdefgh")
    assert rows[1].split()[0] == "8" and rows[8].split()[0] == "1"
    assert "b2*" in rows[6]  # rank 3
    assert rows[2].split()[1:9] == ["o1"] * 8  # rank 7
