"""One generic test of the Game interface, run over every registered game (as in OpenSpiel), with
its default options and the other options its conformance data names (`conformance.json` beside
its rules: tests/rules/conformance.py)."""

from __future__ import annotations

import importlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols import aliases, canonical_name, game_names, get_game
from protocols.base import BadSyntax, Game, IllegalMove, Outcome, Reason, Side
from protocols.options import GameOptions, RepetitionCount
from tests.rules.conformance import conformance_of

GAMES = game_names()
# (game, options): every game with its defaults, then with each set of its conformance data.
CASES = [
    pytest.param(
        name, options, id=f"{name}{json.dumps(options, sort_keys=True) if options else ''}"
    )
    for name in GAMES
    for options in [{}, *conformance_of(name).options]
]
MAX_PLIES = 2000  # far above every game's own limit: a game that runs this long never ends


def start(game: Game[Any, Any, Any], options: dict[str, Any]) -> Any:
    return game.initial_state(game.parse_options(options) if options else None)


def play_random(
    game: Game[Any, Any, Any], seed: int, options: dict[str, Any] | None = None
) -> tuple[list[Any], Outcome]:
    rng = random.Random(seed)
    state = start(game, options or {})
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


@pytest.mark.parametrize(("name", "options"), CASES)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=25, deadline=None)
def test_random_games_round_trip_and_end(name: str, options: dict[str, Any], seed: int) -> None:
    game = get_game(name)
    states, outcome = play_random(game, seed, options)
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
    # A finished game's last position, as its summary shows it: nobody is to move.
    final = game.render_final(states[-1])
    assert final.strip() and "to move" not in final, final


@pytest.mark.parametrize(("name", "options"), CASES)
@pytest.mark.parametrize("line", ["", "   ", "xyzzy", "a1 a2 a3 a4 a5 a6 a7 a8 a9", "\x00", "é"])
def test_rejected_lines_have_a_reason(name: str, options: dict[str, Any], line: str) -> None:
    game = get_game(name)
    state = start(game, options)
    with pytest.raises(IllegalMove) as info:
        game.parse_move(state, line)
    assert info.value.reason.strip(), "a rejected line needs a human-readable reason"


@pytest.mark.parametrize("name", GAMES)
def test_blank_line_is_bad_syntax(name: str) -> None:
    game = get_game(name)
    with pytest.raises(BadSyntax):
        game.parse_move(game.initial_state(None), "")


@pytest.mark.parametrize(("name", "options"), CASES)
def test_legal_lines_of_other_positions_are_judged_not_crashed(
    name: str, options: dict[str, Any]
) -> None:
    """Lines legal somewhere in a game, tried everywhere: accepted, or rejected with a reason."""
    game = get_game(name)
    states, _ = play_random(game, 7, options)
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


@pytest.mark.parametrize(("name", "given"), CASES)
def test_options_round_trip(name: str, given: dict[str, Any]) -> None:
    game = get_game(name)
    options = game.parse_options(given or None)
    dumped = options.model_dump(mode="json")
    assert game.parse_options(dumped) == options
    json.dumps(dumped)


@pytest.mark.parametrize("name", GAMES)
def test_a_game_given_no_options_plays_by_its_default_options(name: str) -> None:
    """A bot given no options plays by constants of the rules (a built-in game's `defaults.py`),
    not by the options model (which would load pydantic): both must describe the same game."""
    game = get_game(name)
    assert issubclass(game.options_model, GameOptions)
    defaults = game.parse_options(None)
    assert game.initial_state(None) == game.initial_state(defaults)
    assert game.state_json(game.initial_state(None)) == game.state_json(
        game.initial_state(defaults)
    )


def test_plug_ins_still_find_the_options_base_where_it_was() -> None:
    from protocols import base

    assert base.GameOptions is GameOptions
    assert base.RepetitionCount is RepetitionCount
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        base.Nothing  # noqa: B018


# A plug-in of the shape the built-in games had before `defaults.py`: its options model imports
# its defaults from the rules, and the rules name the model with `options_model_at`.
OLDER_RULES = """
from protocols.base import options_model_at

LIMIT = 7


class Rules:
    options_model = options_model_at("{package}.options", "OlderOptions")
"""
OLDER_OPTIONS = """
from pydantic import Field

from protocols.options import GameOptions
from {package}.rules import LIMIT


class OlderOptions(GameOptions):
    limit: int = Field(LIMIT, ge=0)
"""


@pytest.mark.parametrize("first", ["rules", "options"])
def test_a_plugin_whose_options_import_its_rules_still_loads(
    first: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The built-in games keep their defaults in `defaults.py`, so that neither module imports
    the other in a circle; a plug-in written before that still works, whichever it loads first."""
    package = f"older_shape_{first}"
    folder = tmp_path / package
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "rules.py").write_text(OLDER_RULES.format(package=package))
    (folder / "options.py").write_text(OLDER_OPTIONS.format(package=package))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module(f"{package}.{first}")
        rules = importlib.import_module(f"{package}.rules")
        model = rules.Rules.options_model
        assert model().limit == 7
        assert model.model_validate({"limit": 3}).limit == 3
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == package]:
            del sys.modules[name]


@pytest.mark.parametrize("name", GAMES)
def test_endings_are_declared_once_and_read_well(name: str) -> None:
    """A game's own ending codes are its own words: never a generic reason, each explained."""
    game = get_game(name)
    for code, meaning in game.endings.items():
        assert code not in set(Reason), f"{code!r} is already a generic reason"
        assert code == code.strip().lower() and " " not in code, f"{code!r}: write it-like-this"
        assert meaning.strip(), f"{code!r} needs a one-line meaning"


@pytest.mark.parametrize(("name", "options"), CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_touched_names_only_squares_of_the_board(
    name: str, options: dict[str, Any], seed: int
) -> None:
    game = get_game(name)
    states, _ = play_random(game, seed, options)
    data = conformance_of(name)
    for state in states[:-1]:
        board = set(game.squares(state))
        for move in game.legal_moves(state):
            touched = game.touched(state, move)
            line = game.format_move(move)
            for kind in (touched.from_, touched.to, touched.removed):
                assert set(kind) <= board, f"{line}: {sorted(set(kind) - board)} off the board"
            if not (touched.from_ or touched.to or touched.removed):
                assert data.passes, f"{line} touches nothing"
            elif not touched.to:
                assert data.leaves_the_board, f"{line} lands nowhere"
