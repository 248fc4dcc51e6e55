"""Traditional (Go-like) Alak: suicide, ko, passing, the end by two passes and the score."""

from __future__ import annotations

import json
import random

import pytest

from protocols.alak.rules import (
    GAME,
    PASS_MOVE,
    SCORE,
    AlakState,
    TraditionalState,
    traditional_position,
    traditional_start,
)
from protocols.base import BadSyntax, IllegalMove, Reason, Side


def legal(state: TraditionalState) -> list[str]:
    return [GAME.format_move(m) for m in GAME.legal_moves(state)]


def play(state: TraditionalState, *lines: str) -> TraditionalState:
    for line in lines:
        state = GAME.apply(state, GAME.parse_move(state, line))
    return state


def rejected(state: TraditionalState, line: str) -> str:
    with pytest.raises(IllegalMove) as info:
        GAME.parse_move(state, line)
    return str(info.value)


def test_the_option_chooses_the_rules() -> None:
    options = GAME.parse_options({"variant": "traditional", "size": 6})
    state = GAME.initial_state(options)
    assert isinstance(state, TraditionalState)
    assert legal(state) == ["a", "b", "c", "d", "e", "f", "pass"]
    assert isinstance(GAME.initial_state(GAME.parse_options({"size": 6})), AlakState)


def test_suicide_is_illegal_unless_it_captures() -> None:
    state = traditional_position(".O.O..", Side.BLUE)
    assert "suicide" in rejected(state, "a")
    assert "suicide" in rejected(state, "c")
    # Filling the last liberty is fine when the move captures: b dies, so a keeps a liberty.
    state = traditional_position(".OX...", Side.BLUE)
    assert "a" in legal(state)
    after = play(state, "a")
    assert GAME.state_json(after)["line"] == "X.X..."
    assert after.blue_captured == 1


def test_a_single_stone_just_captured_cannot_be_retaken_at_once() -> None:
    state = play(traditional_position("O.OO.", Side.BLUE), "b")
    assert GAME.state_json(state)["line"] == ".XOO."
    assert GAME.state_json(state)["banned"] == ["a"]
    assert "ko" in rejected(state, "a")
    assert legal(state) == ["pass"]  # e would be suicide
    # After an exchange elsewhere the ban is gone.
    state = play(traditional_position("O.OO...", Side.BLUE), "b", "g", "f")
    assert state.banned == 0 and "a" in legal(state)


def test_a_group_of_two_may_be_snapped_back() -> None:
    # Blue takes the two orange stones b, c; orange retakes d at once (it captures the lone d),
    # which does not recreate any earlier board: two stones were taken, one is put back.
    state = traditional_position("XOO.O.", Side.BLUE)
    state = play(state, "d")
    assert GAME.state_json(state)["line"] == "X..XO."
    assert state.banned == 0
    assert "c" in legal(state)
    state = play(state, "c")
    assert GAME.state_json(state)["line"] == "X.O.O."
    assert state.orange_captured == 1 and state.blue_captured == 2


def test_two_passes_end_the_game_and_the_scores_decide() -> None:
    state = traditional_position("X.XO..", Side.ORANGE, captured=(1, 0))
    state = play(state, "pass")
    assert state.passes == 1 and GAME.outcome(state) is None
    state = play(state, "pass")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason is Reason.GAME_ENDING
    assert outcome.ending == SCORE and outcome.winner is Side.BLUE
    # blue: b (territory) + a, c (stones) + 1 capture; orange: e, f (territory) + d
    assert outcome.detail == "two passes: blue 4, orange 3"
    assert GAME.legal_moves(state) == ()
    assert rejected(state, "e") == "the game is over"


def test_a_pass_between_placements_does_not_end_the_game() -> None:
    state = play(traditional_start(5), "c", "pass", "a", "pass")
    assert GAME.outcome(state) is None and state.passes == 1
    state = play(state, "b")
    assert state.passes == 0


def test_empty_board_and_shared_runs_are_nobodys_territory() -> None:
    state = play(traditional_start(5), "pass", "pass")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner is None
    assert outcome.detail == "two passes: blue 0, orange 0"
    state = traditional_position("X...O", Side.BLUE)
    assert GAME.state_json(state)["score"] == {"blue": 1, "orange": 1}


def test_third_occurrence_draws() -> None:
    lines = ["e", "pass", "b", "c", "d", "c", "e", "d", "e", "pass", "d", "c", "pass", "d"]
    state = play(traditional_start(5), *lines)
    assert GAME.outcome(state) is None
    state = play(state, "e")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason is Reason.REPETITION
    assert outcome.detail == "third occurrence of the position"
    assert GAME.legal_moves(state) == ()
    # With the rule off the same line goes on.
    state = play(traditional_start(5, repetition=0), *lines, "e")
    assert GAME.outcome(state) is None


def test_two_passes_end_the_game_before_the_draw_rules() -> None:
    state = play(traditional_start(5, ply_limit=2), "pass", "pass")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ending == SCORE


def test_wire_format_and_reasons() -> None:
    state = traditional_start(6)
    assert GAME.parse_move(state, " pass \r") == PASS_MOVE
    assert GAME.format_move(PASS_MOVE) == "pass"
    assert GAME.touched(state, PASS_MOVE).to == ()
    for bad in ("PASS", "g", "a b", "Pass"):
        with pytest.raises(BadSyntax, match="or 'pass'"):
            GAME.parse_move(state, bad)
    state = play(state, "c")
    assert "not empty" in rejected(state, "c")


def test_baljeu_rules_refuse_pass_with_a_reason() -> None:
    state = GAME.initial_state(None)
    with pytest.raises(IllegalMove, match="no passing under Baljeu's rules") as info:
        GAME.parse_move(state, "pass")
    assert not isinstance(info.value, BadSyntax)


def test_views_show_the_score_and_passes() -> None:
    state = play(traditional_position("O.OO.", Side.BLUE), "b", "pass")
    view = GAME.state_json(state)
    assert json.loads(json.dumps(view)) == view
    assert view["variant"] == "traditional" and view["passes"] == 1
    assert view["captured"] == {"blue": 1, "orange": 0}
    assert view["score"] == {"blue": 3, "orange": 3}
    assert GAME.render_text(state).splitlines()[-1] == "score: blue 3, orange 3 (orange passed)"


@pytest.mark.parametrize("seed", range(20))
def test_random_games_round_trip_and_end(seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.initial_state(GAME.parse_options({"variant": "traditional", "size": 7}))
    while GAME.outcome(state) is None:
        moves = GAME.legal_moves(state)
        assert moves and moves[-1] == PASS_MOVE
        for move in moves:
            assert GAME.parse_move(state, GAME.format_move(move)) == move
        letters = "abcdefg"
        for letter in letters:
            if letter not in [GAME.format_move(m) for m in moves]:
                with pytest.raises(IllegalMove):
                    GAME.parse_move(state, letter)
        # Pass rarely, so that games reach captures, kos and full boards.
        placements = moves[:-1]
        move = rng.choice(placements) if placements and rng.random() < 0.9 else PASS_MOVE
        state = GAME.apply(state, move)
    assert state.ply <= 200
