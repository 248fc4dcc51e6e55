"""The Lasker Morris engine: its moves are the rules' moves, its two cores (Python and compiled C)
give identical results, and it sees the game's endings (mills, the no-removal draw,
repetition) inside its search."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bots.clock import unlimited
from bots.config import BotConfig
from bots.morris import board, native
from bots.morris.engine import MorrisSearch
from bots.morris.evaluation import evaluate
from bots.morris.pysearch import MATE, PythonCore
from bots.morris_bot import MorrisChooser
from bots.search_bot import search_chooser
from protocols.base import Side
from protocols.lasker_morris.options import LaskerMorrisOptions
from protocols.lasker_morris.rules import GAME, POINTS, LaskerMorrisState


def random_states(seed: int, games: int, keep: float) -> list[LaskerMorrisState]:
    """States met in random games from the start (placing, moving, flying, both colours)."""
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        state = GAME.initial_state()
        while GAME.outcome(state) is None:
            if rng.random() < keep:
                found.append(state)
            state = GAME.apply(state, rng.choice(list(GAME.legal_moves(state))))
    return found


def random_positions(seed: int, count: int) -> list[LaskerMorrisState]:
    """Positions built at random: any stones on the board and in hand, either side to move."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        blue_board, orange_board = rng.randint(0, 9), rng.randint(0, 9)
        points = rng.sample(POINTS, blue_board + orange_board)
        state = GAME.state_from_position(
            blue=points[:blue_board],
            orange=points[blue_board:],
            blue_hand=rng.randint(0, 10 - blue_board),
            orange_hand=rng.randint(0, 10 - orange_board),
            to_move=rng.choice(list(Side)),
            plies_without_removal=rng.randint(0, 19),
        )
        if GAME.outcome(state) is None:
            found.append(state)
    return found


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> object:
    path = native.build(tmp_path_factory.mktemp("engine"))
    assert path is not None, "the C core did not compile (is there a C compiler?)"
    loaded = native.load(path)
    assert loaded is not None
    return loaded


def test_moves_and_positions_are_the_rules_own() -> None:
    states = random_states(1, 60, 0.5) + random_positions(2, 400)
    for state in states:
        pos, _ = board.from_state(state)
        moves = board.generate(pos)
        assert [board.to_rules_move(m, state.to_move) for m in moves] == list(
            GAME.legal_moves(state)
        )
        assert board.has_move(pos)
        for move in moves[:5]:
            after = GAME.apply(state, board.to_rules_move(move, state.to_move))
            assert board.from_state(after)[0] == board.play(pos, move)


def test_history_keys_follow_the_side_to_move() -> None:
    state = GAME.state_from_position(blue=["a1", "a4", "d2", "f4"], orange=["g1", "g4", "d7"])
    for line in ("a1 d1 r0", "g1 g7 r0", "d1 a1 r0", "g7 g1 r0"):
        state = GAME.apply(state, GAME.parse_move(state, line))
    pos, history = board.from_state(state)
    assert history[-1] == board.repetition_key(pos)
    assert history[0] == history[-1]  # blue to move, the same stones as at the start
    assert len(set(history)) == 4


def test_the_compiled_core_generates_and_evaluates_as_the_python_one(library: object) -> None:
    core = native.NativeCore(library, 20, 3, table_bits=10)  # type: ignore[arg-type]
    for state in random_states(3, 30, 0.3) + random_positions(4, 300):
        pos, _ = board.from_state(state)
        assert core.generate(pos) == board.generate(pos)
        assert core.evaluate(pos) == evaluate(pos, 20)


FIXED_DEPTH = 4


def test_both_cores_search_identically_on_fixed_positions(library: object) -> None:
    states = random_states(5, 12, 0.08)[:24] + random_positions(6, 12)
    assert len(states) >= 30
    for state in states:
        results = []
        for core in (
            PythonCore(20, 3, table_bits=14),
            native.NativeCore(library, 20, 3, table_bits=14),  # type: ignore[arg-type]
        ):
            found = MorrisSearch(core, seed=7).choose(state, unlimited(), FIXED_DEPTH)
            results.append((found.move, found.score, found.depth, found.nodes))
        assert results[0] == results[1], GAME.render_text(state)


def test_the_search_closes_the_winning_mill(library: object) -> None:
    state = GAME.state_from_position(
        blue=["a1", "a4", "d2", "f4"], orange=["g1", "g4", "d7"], blue_hand=1, orange_hand=0
    )
    for core in (PythonCore(20, 3), native.NativeCore(library, 20, 3)):  # type: ignore[arg-type]
        result = MorrisSearch(core, seed=1).choose(state, unlimited(), 3)
        assert GAME.format_move(result.move).startswith("h1 a7 ")
        assert result.score == MATE - 1


def test_the_search_sees_the_no_removal_draw(library: object) -> None:
    # Blue is two stones up, but only one ply is left before the draw and no mill can close.
    blue, orange = ["a1", "d2", "f4", "g7", "b6", "c4"], ["g1", "c5", "e3", "d6"]
    state = GAME.state_from_position(blue=blue, orange=orange, plies_without_removal=19)
    result = MorrisSearch(
        native.NativeCore(library, 20, 3),  # type: ignore[arg-type]
        seed=1,
    ).choose(state, unlimited(), 3)
    assert result.score == 0
    # Without the rule the same position is two stones up.
    options = LaskerMorrisOptions(no_capture_limit=0)
    free = GAME.state_from_position(blue=blue, orange=orange, options=options)
    core = native.NativeCore(library, 0, 3)  # type: ignore[arg-type]
    assert MorrisSearch(core, seed=1).choose(free, unlimited(), 3).score > 50


def test_the_third_occurrence_is_scored_as_a_draw(library: object) -> None:
    # Both sides shuffle; after seven plies, orange's "g7 g1" makes the start position occur a
    # third time: a draw, whatever the evaluation says of the position.
    state = GAME.state_from_position(blue=["a1", "a4", "d2", "f4"], orange=["g1", "g4", "d7"])
    for line in ["a1 d1 r0", "g1 g7 r0", "d1 a1 r0", "g7 g1 r0", "a1 d1 r0", "g1 g7 r0"]:
        state = GAME.apply(state, GAME.parse_move(state, line))
    state = GAME.apply(state, GAME.parse_move(state, "d1 a1 r0"))
    back = GAME.parse_move(state, "g7 g1 r0")
    assert GAME.outcome(GAME.apply(state, back)) is not None  # the rules agree
    pos, history = board.from_state(state)
    move = next(m for m in board.generate(pos) if board.to_rules_move(m, Side.ORANGE) == back)
    for core in (PythonCore(20, 3), native.NativeCore(library, 20, 3)):  # type: ignore[arg-type]
        core.set_root(pos, history)
        assert core.search_root([move], 1, -30_000, 30_000, 10.0).score == 0
        core.set_root(pos, [])  # without the history it is a position like any other
        assert core.search_root([move], 1, -30_000, 30_000, 10.0).score != 0


def test_an_untrusted_library_is_not_loaded(tmp_path: Path) -> None:
    built = native.build(tmp_path)
    assert built is not None
    assert native.find([tmp_path]) == built
    built.chmod(0o777)  # anyone could have replaced it
    assert native.find([tmp_path]) is None


def test_the_bot_plays_with_python_until_its_background_build_is_done(tmp_path: Path) -> None:
    options = GAME.parse_options({})
    chooser = MorrisChooser(BotConfig(seed=1, depth=2, options=options, cache_dir=tmp_path))
    assert isinstance(chooser.search.core, PythonCore)  # nothing compiled in the cache yet
    state = GAME.initial_state(options)
    assert chooser(state, unlimited()) in GAME.legal_moves(state)
    chooser.after_move()  # starts the compiler, off the clock
    assert chooser.building is not None
    chooser.building.wait(timeout=120)
    chooser.after_move()
    assert isinstance(chooser.search.core, native.NativeCore)
    assert native.find([tmp_path]) is not None
    # A new bot finds the library at once.
    fresh = MorrisChooser(BotConfig(seed=1, depth=2, options=options, cache_dir=tmp_path))
    assert isinstance(fresh.search.core, native.NativeCore)


def test_the_search_bot_plays_lasker_morris_with_the_engine(tmp_path: Path) -> None:
    config = BotConfig(seed=1, depth=2, options=GAME.parse_options({}), cache_dir=tmp_path)
    assert isinstance(search_chooser(GAME, config), MorrisChooser)
