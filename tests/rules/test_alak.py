"""Alak rules: pbmserv's examples, captures, the ban, endings, draw rules, state counts, solver."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from bots.solvers.alak import Value, solve, state_key
from protocols.alak.options import AlakOptions
from protocols.alak.rules import GAME, AlakState, pbm_line, position, start_position
from protocols.base import BadSyntax, IllegalMove, Outcome, Reason, Side

# pbmserv's repetition example: from XX.XO.O with White (O, orange) to move these 28 plies
# return to the same state.
CYCLE_LINE = "c f a b g d a f c e g b d e a c d f b c g d b a c d e b"
CYCLE = CYCLE_LINE.split()


def play(state: AlakState, *lines: str) -> AlakState:
    for line in lines:
        assert GAME.outcome(state) is None
        state = GAME.apply(state, GAME.parse_move(state, line))
    return state


def legal(state: AlakState) -> list[str]:
    return [GAME.format_move(move) for move in GAME.legal_moves(state)]


# pbmserv's examples.


def test_banned_point_and_captures_on_o_xo_o() -> None:
    state = position("O.XO.O.", Side.BLUE, banned="g")
    assert legal(state) == ["b", "e"]
    after_b = play(state, "b")  # a dies against the board end
    assert pbm_line(after_b) == ".XXO.O."
    assert GAME.state_json(after_b)["banned"] == ["a"]
    after_e = play(state, "e")  # d dies between c and e; f keeps its liberty g
    assert pbm_line(after_e) == "O.X.XO."
    assert GAME.state_json(after_e)["banned"] == ["d"]
    with pytest.raises(IllegalMove, match="captured"):
        GAME.parse_move(state, "g")


def test_one_stone_captures_two_groups_and_a_full_board_ends_the_game() -> None:
    state = position("XX.XXO.", Side.ORANGE)
    after_c = play(state, "c")
    assert pbm_line(after_c) == "..O..O."
    assert GAME.state_json(after_c)["banned"] == ["a", "b", "d", "e"]
    assert legal(after_c) == ["g"]
    after_g = play(state, "g")
    assert legal(after_g) == ["c"]
    end = play(after_g, "c")
    assert pbm_line(end) == "XXXXXOO"
    assert GAME.outcome(end) == Outcome(
        Side.BLUE, Reason.GAME_ENDING, "orange cannot place: blue 5, orange 2", "stone-count"
    )
    assert legal(end) == []
    with pytest.raises(IllegalMove, match="over"):
        GAME.parse_move(end, "a")


def test_pbmserv_cycle_is_drawn_on_the_third_occurrence() -> None:
    start = position("XX.XO.O", Side.ORANGE)
    once = play(start, *CYCLE)
    assert once.key == start.key
    assert once.repeats == 2
    assert GAME.outcome(once) is None
    state = once
    for line in CYCLE:
        assert GAME.outcome(state) is None
        state = play(state, line)
    assert state.key == start.key
    assert GAME.outcome(state) == Outcome(
        None, Reason.REPETITION, "third occurrence of the position"
    )
    assert legal(state) == []


def test_cycle_runs_on_when_repetition_is_off() -> None:
    state = position("XX.XO.O", Side.ORANGE, repetition=0, ply_limit=0)
    state = play(state, *CYCLE, *CYCLE, *CYCLE)
    assert GAME.outcome(state) is None
    assert state.ply == 3 * len(CYCLE)


def test_cycle_needs_orange_to_move() -> None:
    # Read with blue to move, the example's first two plies fill the board and end the game:
    # so pbmserv's "White" (O) is orange.
    state = play(position("XX.XO.O", Side.BLUE), *CYCLE[:2])
    assert pbm_line(state) == "XXXXOOO"
    assert GAME.outcome(state) == Outcome(
        Side.BLUE, Reason.GAME_ENDING, "blue cannot place: blue 4, orange 3", "stone-count"
    )


# Captures, the ban, suicide.


def test_capture_against_either_board_end() -> None:
    assert pbm_line(play(position("OO...", Side.BLUE), "c")) == "..X.."
    assert pbm_line(play(position("O....", Side.BLUE), "b")) == ".X..."
    assert pbm_line(play(position("...OO", Side.BLUE), "c")) == "..X.."
    assert pbm_line(play(position("..O.O", Side.BLUE), "d")) == "..OX."  # e dies, c keeps b


def test_filling_own_last_liberty_is_legal_and_the_group_stays() -> None:
    state = play(position(".O.XO.", Side.BLUE), "c")  # c-d has no liberty; b and e have one
    assert pbm_line(state) == ".OXXO."
    assert GAME.state_json(state)["banned"] == []
    assert legal(state) == ["a", "f"]


def test_only_groups_touching_the_new_stone_are_examined() -> None:
    state = play(position(".O.XO.", Side.BLUE), "c")  # blue's c-d has no liberty
    state = play(state, "a")  # orange extends b, touching no blue stone
    assert pbm_line(state) == "OOXXO."
    state = play(state, "f")  # blue on f captures e; c-d still stand
    assert pbm_line(state) == "OOXX.X"


def test_ban_lasts_one_turn_and_binds_only_the_captured_player() -> None:
    state = position("X......", Side.ORANGE)
    state = play(state, "b")  # a dies against the edge; blue may not retake a this turn
    assert "a" not in legal(state)
    with pytest.raises(IllegalMove, match="captured by the opponent's last move"):
        GAME.parse_move(state, "a")
    state = play(state, "e", "g")
    assert "a" in legal(state)  # the ban is over after blue's turn


def test_a_player_with_only_banned_points_left_ends_the_game() -> None:
    state = play(position("X.OOOO", Side.BLUE), "b")  # b captures c..f against the end
    assert pbm_line(state) == "XX...."
    assert legal(state) == []
    assert GAME.outcome(state) == Outcome(
        Side.BLUE, Reason.GAME_ENDING, "orange cannot place: blue 2, orange 0", "stone-count"
    )
    state = position("OX.XXX", Side.ORANGE)
    state = play(state, "c")  # orange's c captures b and d..f
    assert pbm_line(state) == "O.O..."
    assert legal(state) == []
    assert GAME.outcome(state) == Outcome(
        Side.ORANGE, Reason.GAME_ENDING, "blue cannot place: blue 0, orange 2", "stone-count"
    )


def test_equal_stones_at_the_end_is_a_draw() -> None:
    full = play(position(".OXX", Side.ORANGE), "a")
    assert pbm_line(full) == "OOXX"
    assert GAME.outcome(full) == Outcome(
        None, Reason.GAME_ENDING, "blue cannot place: blue 2, orange 2", "stone-count"
    )
    banned = play(position(".OXOO", Side.BLUE), "a")  # b dies; orange may not retake it
    assert pbm_line(banned) == "X.XOO"
    assert GAME.outcome(banned) == Outcome(
        None, Reason.GAME_ENDING, "orange cannot place: blue 2, orange 2", "stone-count"
    )


# Order of endings, ply limit.


def test_game_ending_is_checked_before_the_ply_limit() -> None:
    end = play(position("XX.XXOO", Side.BLUE, ply=199), "c")
    assert end.ply == 200
    outcome = GAME.outcome(end)
    assert outcome is not None
    assert (outcome.reason, outcome.ending) == (Reason.GAME_ENDING, "stone-count")


def test_ply_limit_draw() -> None:
    state = play(position(".......", Side.BLUE, ply=199), "a")
    assert GAME.outcome(state) == Outcome(None, Reason.PLY_LIMIT, "200 plies played")
    assert legal(state) == []
    with pytest.raises(IllegalMove, match="over"):
        GAME.parse_move(state, "b")
    off = play(position(".......", Side.BLUE, ply=199, ply_limit=0), "a")
    assert GAME.outcome(off) is None


# Wire format, options, views.


@pytest.mark.parametrize("line", ["", "a b", "l", "A", "aa", "1", "z"])
def test_lines_that_are_not_a_point_are_bad_syntax(line: str) -> None:
    with pytest.raises(BadSyntax) as info:
        GAME.parse_move(GAME.initial_state(None), line)
    assert info.value.reason


def test_occupied_point_is_illegal_with_a_reason() -> None:
    state = play(GAME.initial_state(None), "c")
    with pytest.raises(IllegalMove, match="not empty") as info:
        GAME.parse_move(state, " c \r")
    assert not isinstance(info.value, BadSyntax)
    assert GAME.parse_move(state, " k\r") == GAME.legal_moves(state)[-1]


def test_default_options_and_validation() -> None:
    state = GAME.initial_state(None)
    assert state.rules.size == 11 and state.rules.repetition == 3 and state.rules.ply_limit == 200
    assert legal(state) == list("abcdefghijk")
    assert GAME.initial_state(AlakOptions(size=26)).rules.size == 26
    for bad in ({"size": 4}, {"size": 27}, {"repetition": 1}, {"ply_limit": -1}, {"foo": 1}):
        with pytest.raises(ValidationError):
            GAME.parse_options(bad)
    with pytest.raises(ValidationError, match="unknown Alak variant 'go'"):
        GAME.parse_options({"variant": "go"})


def test_analysis_path_allows_tiny_boards() -> None:
    assert legal(start_position(2)) == ["a", "b"]
    with pytest.raises(ValueError):
        start_position(27)
    with pytest.raises(ValueError):
        position("XQ.")
    with pytest.raises(ValueError):
        position("X..", banned="a")


def test_views() -> None:
    state = play(position("O.XO.O.", Side.BLUE, banned="g"), "b")
    assert GAME.render_text(state).splitlines() == [
        ". X X O . O .",
        "a b c d e f g",
        "orange (O) to move, ply 1; banned: a",
    ]
    view = GAME.state_json(state)
    assert json.loads(json.dumps(view)) == {
        "to_move": "orange",
        "ply": 1,
        "size": 7,
        "points": [None, "blue", "blue", "orange", None, "orange", None],
        "line": ".XXO.O.",
        "banned": ["a"],
        "stones": {"blue": 2, "orange": 2},
    }


# The state space and perfect play.


def reachable(size: int) -> dict[int, AlakState]:
    """Every state (board, ban set, side to move) reachable from the empty board, by key."""
    start = start_position(size, repetition=0, ply_limit=0)
    seen = {start.key: start}
    stack = [start]
    while stack:
        state = stack.pop()
        for move in GAME.legal_moves(state):
            child = GAME.apply(state, move)
            if child.key not in seen:
                seen[child.key] = child
                stack.append(child)
    return seen


@pytest.mark.parametrize(("size", "count"), [(3, 18), (4, 72), (5, 281), (6, 1195), (7, 4401)])
def test_reachable_state_counts(size: int, count: int) -> None:
    assert len(reachable(size)) == count


def test_perfect_play_results_for_the_first_player() -> None:
    expected = [Value.LOSS, Value.WIN, Value.LOSS, Value.WIN, Value.DRAW, Value.WIN]
    got = [solve(size).value(start_position(size))[0] for size in range(2, 8)]
    assert got == expected


def negamax(state: AlakState, memo: dict[int, tuple[Value, int]]) -> tuple[Value, int]:
    """Plain depth-first value and length: fine up to 6 points, where play never cycles."""
    key = state.key
    if key in memo:
        return memo[key]
    moves = GAME.legal_moves(state)
    if not moves:
        outcome = GAME.outcome(state)
        assert outcome is not None
        assert (outcome.reason, outcome.ending) == (Reason.GAME_ENDING, "stone-count")
        won = {None: Value.DRAW, state.to_move: Value.WIN}.get(outcome.winner, Value.LOSS)
        memo[key] = (won, 0)
        return memo[key]
    results = [negamax(GAME.apply(state, move), memo) for move in moves]
    wins = [plies for value, plies in results if value is Value.LOSS]
    if wins:
        memo[key] = (Value.WIN, 1 + min(wins))
    elif any(value is Value.DRAW for value, _ in results):
        memo[key] = (Value.DRAW, 0)
    else:
        memo[key] = (Value.LOSS, 1 + max(plies for _, plies in results))
    return memo[key]


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6])
def test_solver_agrees_with_plain_search_on_acyclic_boards(size: int) -> None:
    memo: dict[int, tuple[Value, int]] = {}
    start = start_position(size, repetition=0, ply_limit=0)
    negamax(start, memo)
    solution = solve(size)
    states = reachable(size)
    assert memo.keys() == states.keys()
    for key, state in states.items():
        assert solution.value(state) == memo[key], pbm_line(state)


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6, 7, 8])
def test_perfect_play_by_both_sides_reaches_the_solved_result(size: int) -> None:
    solution = solve(size)
    state = start_position(size)
    value, plies = solution.value(state)
    for _ in range(250):  # the 200-ply limit ends any drawn line that cycles
        move = solution.best_move(state)
        if move is None:
            break
        assert move in GAME.legal_moves(state)
        state = GAME.apply(state, move)
    outcome = GAME.outcome(state)
    assert outcome is not None
    if value is Value.DRAW:
        assert outcome.winner is None
    else:
        assert (outcome.reason, outcome.ending) == (Reason.GAME_ENDING, "stone-count")
        assert state.ply == plies
        assert outcome.winner is (Side.BLUE if value is Value.WIN else Side.ORANGE)


def test_solver_keys_ignore_colour() -> None:
    blue_view = position("X.O..", Side.BLUE)
    orange_view = position("O.X..", Side.ORANGE)
    assert state_key(blue_view) == state_key(orange_view)
