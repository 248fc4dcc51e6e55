"""One generic test of the Game interface, run over every registered game (as in OpenSpiel)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols import aliases, canonical_name, game_names, get_game
from protocols.base import BadSyntax, Game, IllegalMove, Outcome, Reason, Side

GAMES = game_names()
MAX_PLIES = 2000  # far above every game's own limit: a game that runs this long never ends
# Games in which a move may take a piece off the board without landing anywhere (`x off`).
LEAVES_THE_BOARD = {"lielow"}


def play_random(game: Game[Any, Any, Any], seed: int) -> tuple[list[Any], Outcome]:
    rng = random.Random(seed)
    state = game.initial_state(None)
    states = [state]
    for _ in range(MAX_PLIES):
        outcome = game.outcome(state)
        if outcome is not None:
            return states, outcome
        moves = list(game.legal_moves(state))
        assert moves, f"{game.name}: no legal move but no outcome at ply {state.ply}"
        state = game.apply(state, rng.choice(moves))
        states.append(state)
    raise AssertionError(f"{game.name}: game did not end within {MAX_PLIES} plies")


@pytest.mark.parametrize("name", GAMES)
def test_registry_resolves_name_and_aliases(name: str) -> None:
    game = get_game(name)
    assert game.name == name
    for alias in aliases(name):
        assert canonical_name(alias) == name
        assert get_game(alias) is game
        assert aliases(alias) == aliases(name)


@pytest.mark.parametrize("name", GAMES)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=25, deadline=None)
def test_random_games_round_trip_and_end(name: str, seed: int) -> None:
    game = get_game(name)
    states, outcome = play_random(game, seed)
    assert outcome.winner in (None, Side.BLUE, Side.ORANGE)
    if outcome.reason is Reason.GAME_ENDING:
        assert outcome.ending in game.endings, f"{outcome.ending!r} is not declared"
    for state in states[:-1]:
        assert state.to_move in (Side.BLUE, Side.ORANGE)
        for move in game.legal_moves(state):
            line = game.format_move(move)
            assert line == " ".join(line.split()), f"non-canonical spacing in {line!r}"
            assert game.parse_move(state, line) == move
            # The same line, sloppily spaced and with a \r, means the same move.
            assert game.parse_move(state, f"  {line.replace(' ', '   ')} \r") == move
        json.dumps(game.state_json(state))
        assert game.render_text(state).strip()


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("line", ["", "   ", "xyzzy", "a1 a2 a3 a4 a5 a6 a7 a8 a9", "\x00", "é"])
def test_rejected_lines_have_a_reason(name: str, line: str) -> None:
    game = get_game(name)
    state = game.initial_state(None)
    with pytest.raises(IllegalMove) as info:
        game.parse_move(state, line)
    assert info.value.reason.strip(), "a rejected line needs a human-readable reason"


@pytest.mark.parametrize("name", GAMES)
def test_blank_line_is_bad_syntax(name: str) -> None:
    game = get_game(name)
    with pytest.raises(BadSyntax):
        game.parse_move(game.initial_state(None), "")


@pytest.mark.parametrize("name", GAMES)
def test_legal_lines_of_other_positions_are_judged_not_crashed(name: str) -> None:
    """Lines legal somewhere in a game, tried everywhere: accepted, or rejected with a reason."""
    game = get_game(name)
    states, _ = play_random(game, 7)
    lines = {game.format_move(m) for s in states[:-1] for m in game.legal_moves(s)}
    for state in states[:: max(1, len(states) // 10)]:
        if game.outcome(state) is not None:
            continue
        legal = {game.format_move(m) for m in game.legal_moves(state)}
        for line in sorted(lines)[:300]:
            try:
                move = game.parse_move(state, line)
            except IllegalMove as exc:
                assert exc.reason.strip()
                assert line not in legal, f"{line!r} is legal but was rejected: {exc.reason}"
            else:
                assert game.format_move(move) in legal


@pytest.mark.parametrize("name", GAMES)
def test_options_round_trip(name: str) -> None:
    game = get_game(name)
    options = game.parse_options(None)
    dumped = options.model_dump(mode="json")
    assert game.parse_options(dumped) == options
    json.dumps(dumped)


@pytest.mark.parametrize("name", GAMES)
def test_endings_are_declared_once_and_read_well(name: str) -> None:
    """A game's own ending codes are its own words: never a generic reason, each explained."""
    game = get_game(name)
    for code, meaning in game.endings.items():
        assert code not in set(Reason), f"{code!r} is already a generic reason"
        assert code == code.strip().lower() and " " not in code, f"{code!r}: write it-like-this"
        assert meaning.strip(), f"{code!r} needs a one-line meaning"


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_touched_names_only_squares_of_the_board(name: str, seed: int) -> None:
    game = get_game(name)
    states, _ = play_random(game, seed)
    for state in states[:-1]:
        board = set(game.squares(state))
        for move in game.legal_moves(state):
            touched = game.touched(state, move)
            line = game.format_move(move)
            for kind in (touched.from_, touched.to, touched.removed):
                assert set(kind) <= board, f"{line}: {sorted(set(kind) - board)} off the board"
            if name in LEAVES_THE_BOARD:
                assert touched.to or touched.from_, f"{line} touches nothing"
            else:
                assert touched.to, f"{line} lands nowhere"
