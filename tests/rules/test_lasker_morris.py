"""Lasker Morris rules: the course referee's unit cases, the spec's rules and endings, properties.

Positions are built either by playing legal lines from the start (`play`) or with
`GAME.state_from_position`. A small, deliberately naive reference implementation written from the
spec text (`reference_lines`) cross-checks move generation and the parser on random positions.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from protocols import get_game
from protocols.base import BadSyntax, IllegalMove, Reason, Side
from protocols.lasker_morris.options import LaskerMorrisOptions
from protocols.lasker_morris.rules import (
    ADJACENT,
    GAME,
    MILLS,
    POINTS,
    LaskerMorrisState,
    Move,
    mills_of,
    stones,
    stones_left,
)
from scripts.perft import perft

BLUE, ORANGE = Side.BLUE, Side.ORANGE

# The spec's tables (section 2), copied as text so the module's tables are checked against them.
SPEC_POINTS = "a1 a4 a7 b2 b4 b6 c3 c4 c5 d1 d2 d3 d5 d6 d7 e3 e4 e5 f2 f4 f6 g1 g4 g7"
SPEC_ADJACENCY = """a1: a4 d1 · a4: a1 a7 b4 · a7: a4 d7 · b2: b4 d2 · b4: b2 b6 a4 c4 · b6: b4 d6 ·
  c3: c4 d3 · c4: c3 c5 b4 · c5: c4 d5 · d1: a1 d2 g1 · d2: b2 d1 d3 f2 · d3: c3 d2 e3 ·
  d5: c5 d6 e5 · d6: b6 d5 d7 f6 · d7: a7 d6 g7 · e3: d3 e4 · e4: e3 e5 f4 · e5: d5 e4 ·
  f2: d2 f4 · f4: e4 f2 f6 g4 · f6: d6 f4 · g1: d1 g4 · g4: f4 g1 g7 · g7: d7 g4"""
SPEC_MILLS = """a1 a4 a7 · b2 b4 b6 · c3 c4 c5 · d1 d2 d3 · d5 d6 d7 · e3 e4 e5 · f2 f4 f6 ·
  g1 g4 g7 · a1 d1 g1 · b2 d2 f2 · c3 d3 e3 · a4 b4 c4 · e4 f4 g4 · c5 d5 e5 · b6 d6 f6 ·
  a7 d7 g7"""
SPEC_ADJ = {
    entry.split(":")[0].strip(): set(entry.split(":")[1].split())
    for entry in SPEC_ADJACENCY.split("·")
}
SPEC_MILL_SETS = [frozenset(m.split()) for m in SPEC_MILLS.split("·")]
HAND_TOKEN = {BLUE: "h1", ORANGE: "h2"}

# Ten points per side with no mill among them: 20 placements that never form a mill.
BLUE_NO_MILL = ["b2", "c3", "c4", "d1", "d2", "d5", "d6", "e5", "g1", "g7"]
ORANGE_NO_MILL = ["a1", "a7", "b4", "d3", "d7", "e3", "e4", "f2", "f6", "g4"]
QUIET_PLACEMENTS = [
    f"{HAND_TOKEN[side]} {point} r0"
    for pair in zip(BLUE_NO_MILL, ORANGE_NO_MILL, strict=True)
    for side, point in zip((BLUE, ORANGE), pair, strict=True)
]


def play(*lines: str, state: LaskerMorrisState | None = None) -> LaskerMorrisState:
    """Apply lines (each must be legal) from `state` or the start."""
    state = state or GAME.initial_state()
    for line in lines:
        state = GAME.apply(state, GAME.parse_move(state, line))
    return state


def rejected(state: LaskerMorrisState, line: str) -> IllegalMove:
    with pytest.raises(IllegalMove) as info:
        GAME.parse_move(state, line)
    return info.value


def legal_lines(state: LaskerMorrisState) -> set[str]:
    return {GAME.format_move(m) for m in GAME.legal_moves(state)}


def position(
    blue: list[str],
    orange: list[str],
    blue_hand: int = 0,
    orange_hand: int = 0,
    to_move: Side = BLUE,
    **options: int,
) -> LaskerMorrisState:
    return GAME.state_from_position(
        blue, orange, blue_hand, orange_hand, to_move, options=LaskerMorrisOptions(**options)
    )


# --- the reference: the spec's rules written plainly --------------------------------------------


def board_of(state: LaskerMorrisState) -> dict[str, Side | None]:
    board: dict[str, Side | None] = dict.fromkeys(SPEC_POINTS.split())
    for side in Side:
        for point in stones(state, side):
            board[point] = side
    return board


def hand_of(state: LaskerMorrisState, side: Side) -> int:
    return state.blue_hand if side is BLUE else state.orange_hand


def reference_lines(state: LaskerMorrisState) -> set[str]:
    """Every legal line by the spec's text, ignoring endings."""
    side = state.to_move
    board = board_of(state)
    own = {p for p, s in board.items() if s is side}
    opp = {p for p, s in board.items() if s is side.other}
    empty = {p for p, s in board.items() if s is None}
    hand = hand_of(state, side)
    steps = [(HAND_TOKEN[side], t) for t in empty] if hand else []
    flying = len(own) + hand <= 3
    steps += [(s, t) for s in own for t in empty if flying or t in SPEC_ADJ[s]]
    opp_in_mills = {p for p in opp for m in SPEC_MILL_SETS if p in m and m <= opp}
    lines = set()
    for source, target in steps:
        after = (own - {source}) | {target}
        if any(target in m and m <= after for m in SPEC_MILL_SETS):
            lines |= {f"{source} {target} {r}" for r in (opp - opp_in_mills or opp)}
        else:
            lines.add(f"{source} {target} r0")
    return lines


def reference_perft(state: LaskerMorrisState, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(
        reference_perft(GAME.apply(state, GAME.parse_move(state, line)), depth - 1)
        for line in reference_lines(state)
    )


def random_game(seed: int, options: LaskerMorrisOptions | None = None) -> list[LaskerMorrisState]:
    rng = random.Random(seed)
    state = GAME.initial_state(options)
    states = [state]
    while GAME.outcome(state) is None:
        assert state.ply < 3000, "the game does not end"
        state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))
        states.append(state)
    return states


# --- the board ----------------------------------------------------------------------------------


def test_board_has_the_24_points_of_the_spec() -> None:
    assert len(POINTS) == 24
    assert list(POINTS) == SPEC_POINTS.split()


def test_adjacency_matches_the_spec_and_is_symmetric() -> None:
    assert {p: set(ns) for p, ns in ADJACENT.items()} == SPEC_ADJ
    for point, neighbours in ADJACENT.items():
        assert point not in neighbours
        for other in neighbours:
            assert point in ADJACENT[other], f"{point}-{other} is one-way"


def test_sixteen_mills_each_a_line_of_three_adjacent_points() -> None:
    assert len(MILLS) == 16
    assert {frozenset(m) for m in MILLS} == set(SPEC_MILL_SETS)
    for a, b, c in MILLS:
        assert b in ADJACENT[a] and c in ADJACENT[b], f"{a} {b} {c} is not a connected line"
        assert a not in ADJACENT[c]
    for point in POINTS:  # the board's symmetry: every point lies on exactly two mills
        assert sum(point in m for m in MILLS) == 2


def test_start_position() -> None:
    state = GAME.initial_state()
    assert state.to_move is BLUE and state.ply == 0
    assert stones(state, BLUE) == stones(state, ORANGE) == []
    assert (state.blue_hand, state.orange_hand) == (10, 10)
    assert legal_lines(state) == {f"h1 {p} r0" for p in POINTS}
    assert GAME.outcome(state) is None


def test_registry_name_and_alias() -> None:
    assert GAME.name == "lasker-morris"
    assert get_game("laskermorris") is GAME
    assert get_game("lasker-morris") is GAME


# --- the course referee's unit cases ------------------------------------------------------------


def test_course_mill_and_capture_built_by_play() -> None:
    state = play("h1 d1 r0", "h2 a4 r0", "h1 d2 r0", "h2 g7 r0")
    assert "h1 d3 a4" in legal_lines(state)
    after = play("h1 d3 a4", state=state)
    assert board_of(after)["a4"] is None
    assert board_of(after)["d3"] is BLUE
    assert (after.blue_hand, stones_left(after, ORANGE)) == (7, 9)
    assert after.plies_without_removal == 0


def test_course_mill_and_capture_constructed() -> None:
    state = position(["d1", "d2"], ["a4"], blue_hand=8, orange_hand=9)
    after = play("h1 d3 a4", state=state)
    assert stones(after, ORANGE) == []
    assert stones(after, BLUE) == ["d1", "d2", "d3"]
    assert mills_of(after, BLUE) == [("d1", "d2", "d3")]


def test_course_capture_without_mill_is_illegal() -> None:
    state = position([], ["a4"], blue_hand=10, orange_hand=9)
    error = rejected(state, "h1 d1 a4")
    assert not isinstance(error, BadSyntax)
    assert "Must use r0 when no mill is formed" in error.reason


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("H1 D1 R0", "case-sensitive"),
        ("h1d1r0", "expected 3 tokens, got 1"),
        ("h1 d1", "expected 3 tokens, got 2"),
        ("h1 d1 ", "expected 3 tokens, got 2"),
        ("h1 d1 r0 extra", "expected 3 tokens, got 4"),
        ("h3 d1 r0", "invalid source 'h3'"),
        ("h1 x9 r0", "invalid target 'x9'"),
        ("h1 a2 r0", "not one of the 24 points"),
        ("h1 d1 x9", "invalid remove 'x9'"),
        ("h1 h2 r0", "invalid target 'h2'"),
        ("r0 d1 r0", "invalid source 'r0'"),
        ("h1 d1 h2", "invalid remove 'h2'"),
        ("", "blank line"),
    ],
)
def test_course_malformed_lines_are_bad_syntax(line: str, expected: str) -> None:
    state = position(["d1", "d2"], ["a4"], blue_hand=8, orange_hand=9)
    error = rejected(state, line)
    assert isinstance(error, BadSyntax)
    assert expected in error.reason


def test_case_hint_names_the_right_spelling() -> None:
    error = rejected(GAME.initial_state(), "h1 D1 r0")
    assert isinstance(error, BadSyntax)
    assert "'d1'" in error.reason and "target" in error.reason


def test_blue_may_not_use_orange_hand_and_orange_not_blue_hand() -> None:
    error = rejected(GAME.initial_state(), "h2 d1 r0")
    assert not isinstance(error, BadSyntax)
    assert "h2" in error.reason and "orange's hand" in error.reason
    state = play("h1 d1 r0")
    error = rejected(state, "h1 d2 r0")
    assert not isinstance(error, BadSyntax)
    assert "blue's hand" in error.reason
    assert "h2 d2 r0" in legal_lines(state)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("h1 d1 r0", "Target position d1 is occupied"),
        ("h1 a4 r0", "Target position a4 is occupied"),
        ("d1 d1 r0", "Target position d1 is occupied"),
        ("a4 a1 r0", "Source is not your stone: a4 is an orange stone"),
        ("g7 g4 r0", "Source is not your stone: g7 is empty"),
        ("d1 a1 a4", "Must use r0 when no mill is formed"),
        ("h1 d3 r0", "Must remove an opponent stone when a mill is formed"),
        ("h1 d3 d1", "Cannot remove your own stone at d1"),
        ("h1 d3 d3", "Cannot remove your own stone at d3"),
        ("h1 d3 g1", "Must remove an opponent stone when a mill is formed: g1 is empty"),
    ],
)
def test_illegal_lines_get_specific_reasons(line: str, expected: str) -> None:
    state = position(["d1", "d2"], ["a4"], blue_hand=8, orange_hand=9)
    error = rejected(state, line)
    assert not isinstance(error, BadSyntax)
    assert expected in error.reason


def test_no_stones_left_in_hand() -> None:
    state = position(["d1", "d2", "c3", "e5"], ["a4", "a7", "g7"], orange_hand=4)
    error = rejected(state, "h1 g1 r0")
    assert not isinstance(error, BadSyntax)
    assert "No stones left in hand" in error.reason
    assert not any(line.startswith("h1") for line in legal_lines(state))


# --- moving, flying, mills ----------------------------------------------------------------------


def test_lasker_rule_move_a_board_stone_while_holding_stones() -> None:
    state = play("h1 d1 r0", "h2 g7 r0")
    lines = legal_lines(state)
    assert {"d1 a1 r0", "d1 d2 r0", "d1 g1 r0"} <= lines
    assert "h1 a1 r0" in lines
    after = play("d1 d2 r0", state=state)
    assert stones(after, BLUE) == ["d2"] and after.blue_hand == 9


def test_moves_without_flying_must_be_adjacent() -> None:
    state = play("h1 d1 r0", "h2 g7 r0")
    error = rejected(state, "d1 g4 r0")
    assert "Must move to adjacent position" in error.reason
    assert "has 10" in error.reason


@pytest.mark.parametrize(
    ("board", "hand"),
    [(["d1", "d2"], 1), (["d1", "d2", "d3"], 0), (["d1"], 2)],
)
def test_flying_with_three_stones_counting_the_hand(board: list[str], hand: int) -> None:
    state = position(board, ["a7", "b6", "f2", "c5"], blue_hand=hand, orange_hand=2)
    assert stones_left(state, BLUE) == 3
    play("d1 g7 r0", state=state)  # legal: not adjacent
    empty = {p for p, s in board_of(state).items() if s is None}
    assert {m.target for m in GAME.legal_moves(state) if m.source == "d1"} == empty


@pytest.mark.parametrize(
    ("board", "hand"),
    [(["d1", "d2"], 2), (["d1", "d2", "d3"], 1), (["d1", "d2", "d3", "d5"], 0)],
)
def test_no_flying_with_four_stones_counting_the_hand(board: list[str], hand: int) -> None:
    state = position(board, ["a7", "b6", "f2", "c5"], blue_hand=hand, orange_hand=2)
    assert stones_left(state, BLUE) == 4
    assert "Must move to adjacent position" in rejected(state, "d1 g7 r0").reason
    targets = {m.target for m in GAME.legal_moves(state) if m.source == "d1"}
    assert targets == {p for p in ADJACENT["d1"] if board_of(state)[p] is None}


def test_vacated_source_does_not_count_for_a_mill() -> None:
    state = position(["d1", "d2", "b4", "f4"], ["a7", "b6", "f2"], blue_hand=3, orange_hand=3)
    assert "d2 d3 r0" in legal_lines(state)  # d1 d2 d3 is not a mill: d2 left it
    assert "Must use r0" in rejected(state, "d2 d3 a7").reason
    assert "d2 d3 a7" not in legal_lines(state)


def test_moving_back_into_a_mill_forms_it_again() -> None:
    state = position(["d1", "d2", "e3", "g7"], ["a7", "b6", "f2", "c5"], 3, 3)
    assert {"e3 d3 a7", "e3 d3 b6"} <= legal_lines(state)
    assert "e3 d3 r0" not in legal_lines(state)
    # Removal is judged after the move: the vacated source is empty, the target is blue's own.
    assert "e3 is empty" in rejected(state, "e3 d3 e3").reason
    assert "Cannot remove your own stone" in rejected(state, "e3 d3 d3").reason


def test_two_mills_at_once_still_remove_one_stone() -> None:
    state = position(["c3", "e3", "d1", "d2"], ["a7", "b6", "f2"], 1, 4)
    lines = {line for line in legal_lines(state) if line.startswith("h1 d3 ")}
    assert lines == {"h1 d3 a7", "h1 d3 b6", "h1 d3 f2"}
    after = play("h1 d3 b6", state=state)
    assert stones(after, ORANGE) == ["a7", "f2"] and after.orange_hand == 4
    assert len(mills_of(after, BLUE)) == 2


def test_stone_in_a_mill_is_protected_while_stones_outside_mills_exist() -> None:
    state = position(["d1", "d2"], ["a1", "a4", "a7", "g4"], blue_hand=8, orange_hand=6)
    error = rejected(state, "h1 d3 a4")
    assert not isinstance(error, BadSyntax)
    assert "Cannot remove stone in mill when stones outside mills exist" in error.reason
    assert "g4" in error.reason
    assert {line for line in legal_lines(state) if line.startswith("h1 d3")} == {"h1 d3 g4"}
    assert stones(play("h1 d3 g4", state=state), ORANGE) == ["a1", "a4", "a7"]


def test_stone_in_a_mill_may_be_removed_when_all_stand_in_mills() -> None:
    state = position(["d1", "d2"], ["a1", "a4", "a7"], blue_hand=8, orange_hand=7)
    mill_lines = {line for line in legal_lines(state) if line.startswith("h1 d3")}
    assert mill_lines == {"h1 d3 a1", "h1 d3 a4", "h1 d3 a7"}
    assert stones(play("h1 d3 a4", state=state), ORANGE) == ["a1", "a7"]


# --- endings ------------------------------------------------------------------------------------


def test_no_capture_draw_exactly_at_ply_20_with_placements() -> None:
    state = GAME.initial_state()
    for line in QUIET_PLACEMENTS:
        assert GAME.outcome(state) is None
        state = play(line, state=state)
    assert state.ply == 20 and state.plies_without_removal == 20
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (None, Reason.NO_CAPTURE_LIMIT)
    assert GAME.legal_moves(state) == ()
    assert "game is over" in rejected(state, "d1 a1 r0").reason


def test_no_capture_limit_zero_disables_the_draw() -> None:
    state = play(
        *QUIET_PLACEMENTS, state=GAME.initial_state(LaskerMorrisOptions(no_capture_limit=0))
    )
    assert state.ply == 20 and GAME.outcome(state) is None
    assert GAME.legal_moves(state)


def test_no_capture_counter_resets_on_removal() -> None:
    start = GAME.initial_state(LaskerMorrisOptions(repetition=0))
    state = play("h1 d1 r0", "h2 a1 r0", "h1 d2 r0", "h2 a4 r0", "h1 d3 a1", state=start)
    assert state.ply == 5 and state.plies_without_removal == 0
    # Twenty quiet plies from here: the draw comes at ply 25, not at ply 20.
    while state.ply < 25:
        assert GAME.outcome(state) is None
        quiet = [m for m in GAME.legal_moves(state) if m.remove == "r0"]
        assert quiet
        state = GAME.apply(state, quiet[0])
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason is Reason.NO_CAPTURE_LIMIT
    assert state.plies_without_removal == 20


def test_removal_sets_the_counter_to_zero_during_play() -> None:
    state = GAME.state_from_position(
        ["d1", "d2"], ["a4", "g7", "b6"], 8, 7, BLUE, plies_without_removal=19
    )
    assert play("h1 d3 a4", state=state).plies_without_removal == 0
    quiet = play("h1 g1 r0", state=state)
    assert quiet.plies_without_removal == 20
    assert GAME.outcome(quiet) is not None


SHUFFLE = ["h1 a1 r0", "h2 g7 r0", "a1 d1 r0", "g7 g4 r0", "d1 a1 r0", "g4 g7 r0"]
CYCLE = ["a1 d1 r0", "g7 g4 r0", "d1 a1 r0", "g4 g7 r0"]


def test_third_occurrence_of_a_position_is_a_draw() -> None:
    state = play(*SHUFFLE)  # the position after ply 2, again after ply 6
    assert state.ply == 6 and GAME.outcome(state) is None
    state = play(*CYCLE[:3], state=state)
    assert GAME.outcome(state) is None
    state = play(CYCLE[3], state=state)
    outcome = GAME.outcome(state)
    assert state.ply == 10 and state.plies_without_removal == 10
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (None, Reason.REPETITION)
    assert "third" in outcome.detail


def test_repetition_setting_is_the_occurrence_that_draws() -> None:
    state = play(*SHUFFLE, state=GAME.initial_state(LaskerMorrisOptions(repetition=2)))
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason is Reason.REPETITION


def test_repetition_zero_disables_the_draw() -> None:
    state = play(*SHUFFLE, *CYCLE, state=GAME.initial_state(LaskerMorrisOptions(repetition=0)))
    assert state.ply == 10 and GAME.outcome(state) is None
    state = play(*CYCLE, *CYCLE, *CYCLE[:2], state=state)
    outcome = GAME.outcome(state)
    assert state.ply == 20
    assert outcome is not None and outcome.reason is Reason.NO_CAPTURE_LIMIT


def test_constructed_position_counts_as_first_occurrence() -> None:
    state = position(["a1", "b2", "c3", "e5"], ["g7", "f6", "e3", "a7"])
    lines = ["a1 a4 r0", "g7 g4 r0", "a4 a1 r0", "g4 g7 r0"]
    state = play(*lines, state=state)
    assert GAME.outcome(state) is None  # second occurrence
    state = play(*lines, state=state)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason is Reason.REPETITION


def test_position_with_other_hands_or_side_is_not_a_repetition() -> None:
    # Same board after plies 2 and 4, but blue's hand differs: no repetition is counted.
    state = play("h1 a1 r0", "h2 g7 r0", "a1 d1 r0", "g7 g4 r0", "h1 a1 r0", "g4 g7 r0")
    assert state.history.count(state.history[-1]) == 1


def test_side_to_move_is_part_of_the_position() -> None:
    # Both sides fly, so the same board recurs after 5 plies with the other side to move.
    state = position(["a1", "b2", "c3"], ["b6", "d7", "g4"])
    state = play("a1 g1 r0", "b6 b4 r0", "g1 e5 r0", "b4 b6 r0", "e5 a1 r0", state=state)
    assert board_of(state) == board_of(position(["a1", "b2", "c3"], ["b6", "d7", "g4"]))
    assert state.to_move is ORANGE
    state = play("g4 e4 r0", "a1 a4 r0", "e4 f2 r0", "a4 a1 r0", "f2 g4 r0", state=state)
    # Third time this board, but only the second time with blue to move.
    assert state.to_move is BLUE and GAME.outcome(state) is None


BLOCKING = {"blue": ["a4", "d1", "d7", "f4"], "orange": ["a1", "a7", "g1", "g7"]}


def test_player_to_move_without_a_legal_move_loses() -> None:
    state = position(BLOCKING["blue"], BLOCKING["orange"])
    assert GAME.outcome(state) is None
    after = play("f4 g4 r0", state=state)  # shuts in orange's four corner stones
    assert GAME.legal_moves(after) == []
    assert reference_lines(after) == set()
    outcome = GAME.outcome(after)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (BLUE, Reason.NO_LEGAL_MOVE)
    assert "orange has no legal move" in outcome.detail


def test_blocked_player_with_stones_in_hand_can_still_place() -> None:
    state = position(["a4", "d1", "d7", "g4"], BLOCKING["orange"], 0, 1, ORANGE)
    assert GAME.outcome(state) is None
    assert all(line.startswith("h2 ") for line in legal_lines(state))


def test_flying_player_is_never_blocked() -> None:
    state = position(["a1", "c3", "g7"], ["a4", "d1", "c4", "d3", "d7", "g4"], orange_hand=4)
    outcome = GAME.outcome(state)
    assert outcome is None
    assert "a1 g1 r0" in legal_lines(state)


def test_player_left_with_fewer_than_three_stones_loses() -> None:
    state = position(["d1", "d2"], ["a7", "b6", "f2"], blue_hand=1)
    assert stones_left(state, ORANGE) == 3 and GAME.outcome(state) is None
    after = play("h1 d3 b6", state=state)
    outcome = GAME.outcome(after)
    assert outcome is not None
    assert (outcome.winner, outcome.reason, outcome.ending) == (
        BLUE,
        Reason.GAME_ENDING,
        "too-few-stones",
    )
    assert "orange has 2 stones" in outcome.detail
    assert GAME.legal_moves(after) == ()


def test_stones_in_hand_count_against_the_too_few_rule() -> None:
    state = position(["d1", "d2"], ["a7", "b6"], blue_hand=1, orange_hand=1)
    after = play("h1 d3 b6", state=state)
    assert stones_left(after, ORANGE) == 2
    outcome = GAME.outcome(after)
    assert outcome is not None
    assert (outcome.reason, outcome.ending) == (Reason.GAME_ENDING, "too-few-stones")


def test_mill_without_an_opponent_stone_on_the_board_has_no_legal_line() -> None:
    # Only constructible, never reached in play: the opponent always has a stone down after
    # moving. Nothing can be removed and r0 is refused, so the mill-forming step is illegal.
    state = position(["d1", "d2"], [], blue_hand=8, orange_hand=5)
    assert "Must remove an opponent stone" in rejected(state, "h1 d3 r0").reason
    assert not any(line.startswith("h1 d3") for line in legal_lines(state))
    assert legal_lines(state) == reference_lines(state)


def test_constructed_position_with_both_sides_below_three_scores_the_side_to_move() -> None:
    state = position(["d1", "d2"], ["a7", "b6"], to_move=ORANGE)
    outcome = GAME.outcome(state)
    assert outcome is not None and (outcome.winner, outcome.reason, outcome.ending) == (
        BLUE,
        Reason.GAME_ENDING,
        "too-few-stones",
    )


# --- order of the endings -----------------------------------------------------------------------


def coinciding_draws(**options: int) -> LaskerMorrisState:
    """At ply 20: the 20th quiet ply and the third occurrence of the position after ply 12."""
    state = play(*QUIET_PLACEMENTS[:12], state=GAME.initial_state(LaskerMorrisOptions(**options)))
    cycle = ["d5 e5 r0", "a7 a4 r0", "e5 d5 r0", "a4 a7 r0"]
    state = play(*cycle, state=state)
    assert GAME.outcome(state) is None  # second occurrence, 16 quiet plies
    return play(*cycle, state=state)


def test_no_capture_draw_is_checked_before_repetition() -> None:
    state = coinciding_draws()
    assert state.ply == 20 and state.history.count(state.history[-1]) == 3
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason is Reason.NO_CAPTURE_LIMIT


def test_repetition_alone_when_the_no_capture_draw_is_off() -> None:
    outcome = GAME.outcome(coinciding_draws(no_capture_limit=0))
    assert outcome is not None and outcome.reason is Reason.REPETITION


def test_no_capture_draw_is_checked_before_no_legal_move() -> None:
    state = GAME.state_from_position(
        BLOCKING["blue"], BLOCKING["orange"], 0, 0, BLUE, plies_without_removal=19
    )
    after = play("f4 g4 r0", state=state)
    outcome = GAME.outcome(after)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (None, Reason.NO_CAPTURE_LIMIT)
    off = GAME.state_from_position(
        BLOCKING["blue"],
        BLOCKING["orange"],
        plies_without_removal=19,
        options=LaskerMorrisOptions(no_capture_limit=0),
    )
    outcome = GAME.outcome(play("f4 g4 r0", state=off))
    assert outcome is not None and outcome.reason is Reason.NO_LEGAL_MOVE


def test_no_capture_draw_is_checked_before_too_few_stones() -> None:
    # Not reachable in play (a removal resets the counter); the order still follows the spec.
    state = GAME.state_from_position(
        ["d1", "d2", "d3"], ["a7", "b6"], 0, 0, ORANGE, plies_without_removal=20
    )
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason is Reason.NO_CAPTURE_LIMIT
    off = LaskerMorrisOptions(no_capture_limit=0)
    state = GAME.state_from_position(["d1", "d2", "d3"], ["a7", "b6"], to_move=ORANGE, options=off)
    outcome = GAME.outcome(state)
    assert outcome is not None and (outcome.winner, outcome.reason, outcome.ending) == (
        BLUE,
        Reason.GAME_ENDING,
        "too-few-stones",
    )


# --- options, construction, views ---------------------------------------------------------------


def test_options_defaults_and_validation() -> None:
    options = GAME.parse_options(None)
    assert options == LaskerMorrisOptions(no_capture_limit=20, repetition=3)
    assert GAME.parse_options({"repetition": 0, "no_capture_limit": 0}).repetition == 0
    for bad in ({"repetition": 1}, {"no_capture_limit": -1}, {"repetition": -2}, {"plies": 3}):
        with pytest.raises(ValidationError):
            GAME.parse_options(bad)
    with pytest.raises(ValidationError, match="at least 2"):
        GAME.parse_options({"repetition": 1})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"blue": ["d4"]}, "not a point"),
        ({"blue": ["d1", "d1"]}, "twice"),
        ({"blue": ["d1"], "orange": ["d1"]}, "both sides"),
        ({"blue": ["d1"], "blue_hand": 10}, "total <= 10"),
        ({"orange_hand": -1}, "hand must be >= 0"),
    ],
)
def test_state_from_position_rejects_impossible_positions(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        GAME.state_from_position(**kwargs)  # type: ignore[arg-type]


def test_state_json_describes_the_position() -> None:
    state = play("h1 d1 r0", "h2 a4 r0", "h1 d2 r0", "h2 g7 r0", "h1 d3 a4")
    view = GAME.state_json(state)
    assert view["to_move"] == "orange" and view["ply"] == 5
    assert len(view["points"]) == 24
    assert {p for p, s in view["points"].items() if s == "blue"} == {"d1", "d2", "d3"}
    assert {p for p, s in view["points"].items() if s == "orange"} == {"g7"}
    assert view["hands"] == {"blue": 7, "orange": 8}
    assert view["plies_without_removal"] == 0
    assert view["mills"] == [["d1", "d2", "d3"]]
    assert view["flying"] == {"blue": False, "orange": False}


def test_render_text_shows_stones_coordinates_and_hands() -> None:
    state = play("h1 d1 r0", "h2 a7 r0")
    text = GAME.render_text(state)
    lines = text.splitlines()
    assert lines[0].startswith("7 O") and lines[12].startswith("1 .-----------B")
    assert lines[13].split() == list("abcdefg")
    assert text.count("B") - text.count("B =") == 1 and "blue 9 (h1), orange 9 (h2)" in text


# --- properties ---------------------------------------------------------------------------------


def test_perft_matches_the_reference() -> None:
    state = GAME.initial_state()
    for depth in (1, 2, 3):
        assert perft(GAME, state, depth) == reference_perft(state, depth)


@given(seed=st.integers(0, 2**32 - 1), repetition=st.sampled_from([0, 3]))
@settings(max_examples=30, deadline=None)
def test_random_games_agree_with_the_reference(seed: int, repetition: int) -> None:
    states = random_game(seed, LaskerMorrisOptions(repetition=repetition))
    for before, after in itertools.pairwise(states):
        moves = GAME.legal_moves(before)
        lines = [GAME.format_move(m) for m in moves]
        assert len(set(lines)) == len(lines), "a move is listed twice"
        assert set(lines) == reference_lines(before)
        assert list(GAME.legal_moves(before)) == list(moves), "order is not deterministic"
        for move, line in zip(moves, lines, strict=True):
            assert GAME.parse_move(before, line) == move
        # Stones never appear from nowhere; at most one leaves the game per ply.
        for side in Side:
            lost = stones_left(before, side) - stones_left(after, side)
            assert lost in ((0, 1) if side is before.to_move.other else (0,))
        assert after.blue & after.orange == 0
        assert min(after.blue_hand, after.orange_hand) >= 0
    final = GAME.outcome(states[-1])
    assert final is not None
    assert GAME.legal_moves(states[-1]) in ((), [])


@st.composite
def positions(draw: st.DrawFn) -> LaskerMorrisState:
    """Any position with at most 10 stones a side (board plus hand), either side to move."""
    order = draw(st.permutations(POINTS))
    n_blue = draw(st.integers(0, 10))
    n_orange = draw(st.integers(0, 10))
    blue_hand = draw(st.integers(0, 10 - n_blue))
    orange_hand = draw(st.integers(0, 10 - n_orange))
    to_move = draw(st.sampled_from(list(Side)))
    return GAME.state_from_position(
        order[:n_blue], order[n_blue : n_blue + n_orange], blue_hand, orange_hand, to_move
    )


@given(state=positions())
@settings(max_examples=300, deadline=None)
def test_constructed_positions_agree_with_the_reference(state: LaskerMorrisState) -> None:
    reference = reference_lines(state)
    outcome = GAME.outcome(state)
    lows = [side for side in Side if len(stones(state, side)) + hand_of(state, side) < 3]
    if lows:
        assert outcome is not None
        assert (outcome.reason, outcome.ending) == (Reason.GAME_ENDING, "too-few-stones")
        assert outcome.winner is (lows[0].other if len(lows) == 1 else state.to_move.other)
    elif not reference:
        assert outcome is not None and outcome.reason is Reason.NO_LEGAL_MOVE
        assert outcome.winner is state.to_move.other
    else:
        assert outcome is None
        assert legal_lines(state) == reference
    if outcome is not None:
        assert GAME.legal_moves(state) in ((), [])


TOKENS = [*POINTS, "h1", "h2", "r0", "H1", "a2", "d4", "x9", "R0", "h0"]


@given(
    seed=st.integers(0, 2**32 - 1),
    ply=st.integers(0, 200),
    lines=st.lists(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=4), max_size=40),
)
@settings(max_examples=60, deadline=None)
def test_parser_accepts_exactly_the_legal_lines(
    seed: int, ply: int, lines: list[list[str]]
) -> None:
    states = random_game(seed)
    state = states[min(ply, len(states) - 2)]
    legal = reference_lines(state)
    # Also try the legal lines themselves and near misses built from them.
    candidates = [" ".join(tokens) for tokens in lines] + sorted(legal)[:20]
    for line in candidates:
        tokens = line.split()
        well_formed = (
            len(tokens) == 3
            and tokens[0] in {*POINTS, "h1", "h2"}
            and tokens[1] in POINTS
            and tokens[2] in {*POINTS, "r0"}
        )
        try:
            move = GAME.parse_move(state, line)
        except BadSyntax as exc:
            assert not well_formed and exc.reason.strip()
        except IllegalMove as exc:
            assert well_formed and line not in legal and exc.reason.strip()
        else:
            assert line in legal and move == Move(*tokens)


@pytest.mark.parametrize("seed", range(3))
def test_long_games_without_draw_rules_stay_consistent(seed: int) -> None:
    """With both draw rules off, play 300 plies of random moves (or to the end)."""
    rng = random.Random(seed)
    state = GAME.initial_state(LaskerMorrisOptions(no_capture_limit=0, repetition=0))
    while state.ply < 300 and GAME.outcome(state) is None:
        moves = GAME.legal_moves(state)
        assert {GAME.format_move(m) for m in moves} == reference_lines(state)
        state = GAME.apply(state, rng.choice(moves))
    outcome = GAME.outcome(state)
    if outcome is not None:
        assert (outcome.reason, outcome.ending) in (
            (Reason.GAME_ENDING, "too-few-stones"),
            (Reason.NO_LEGAL_MOVE, None),
        )
        assert outcome.winner is state.to_move.other
