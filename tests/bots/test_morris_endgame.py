"""The Lasker Morris endgame tables: built through the cache, they agree with a plain search of
the rules (the referee's own code) on random small positions, with the no-removal count."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bots.clock import unlimited
from bots.config import BotConfig
from bots.morris import board, endgame, native
from bots.morris.engine import MorrisSearch
from bots.morris.pysearch import TABLE_WIN, WIN_BOUND, PythonCore
from bots.morris_bot import MorrisChooser
from bots.solvers import cache
from protocols.base import Side
from protocols.lasker_morris.options import LaskerMorrisOptions
from protocols.lasker_morris.rules import GAME, POINTS, LaskerMorrisState

LIMIT = 20
NO_REPETITION = LaskerMorrisOptions(no_capture_limit=LIMIT, repetition=0)
CLASSES = [(3, 3), (3, 4), (4, 3), (4, 4)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("endgame")
    paths = cache.ensure_tables("lasker-morris", None, directory)
    assert len(paths) == 2 and all(path.exists() for path in paths)
    return directory


@pytest.fixture(scope="module")
def tables(folder: Path) -> endgame.EndgameTables:
    loaded = cache.load_morris_endgame([folder], LIMIT)
    assert loaded is not None
    return loaded


def small_position(rng: random.Random, a: int, b: int, counter: int) -> LaskerMorrisState:
    points = rng.sample(POINTS, a + b)
    return GAME.state_from_position(
        blue=points[:a],
        orange=points[a:],
        to_move=Side.BLUE,
        plies_without_removal=counter,
        options=NO_REPETITION,
    )


def plain_value(state: LaskerMorrisState, after_capture: endgame.EndgameTables | None) -> int:
    """1, 0 or -1 for the side to move, by minimax on the rules. After a removal the position
    is worth what the tables say (`after_capture`), or, without them, must be over."""
    outcome = GAME.outcome(state)
    if outcome is not None:
        return 0 if outcome.winner is None else 1 if outcome.winner is state.to_move else -1
    best = -1
    for move in GAME.legal_moves(state):
        after = GAME.apply(state, move)
        if move.remove != "r0" and GAME.outcome(after) is None:
            assert after_capture is not None, "a removal that does not end the game"
            found = after_capture.probe(board.from_state(after)[0])
            value = (found > 0) - (found < 0)
        else:
            value = plain_value(after, after_capture)
        best = max(best, -value)
        if best == 1:
            break
    return best


def table_value(tables: endgame.EndgameTables, state: LaskerMorrisState) -> int:
    found = tables.probe(board.from_state(state)[0])
    return (found > 0) - (found < 0)


def test_the_board_has_sixteen_symmetries() -> None:
    found = endgame.symmetries()
    assert len(set(found)) == 16
    assert found[0] == tuple(range(24))


def test_three_against_three_agrees_with_a_plain_search(tables: endgame.EndgameTables) -> None:
    # With three stones each, any removal ends the game: the plain search needs no table.
    rng = random.Random(11)
    seen = {1: 0, 0: 0, -1: 0}
    for _ in range(100):
        state = small_position(rng, 3, 3, rng.choice([18, 19]))
        if GAME.outcome(state) is not None:
            continue
        truth = plain_value(state, None)
        assert table_value(tables, state) == truth, GAME.render_text(state)
        seen[truth] += 1
    assert seen[1] >= 3 and seen[0] >= 3  # wins and draws both checked


@pytest.mark.parametrize(("a", "b"), CLASSES)
def test_every_class_keeps_the_rules_recurrence(
    tables: endgame.EndgameTables, a: int, b: int
) -> None:
    # Each value must be what one ply of the rules makes of the values after it: with that,
    # the tables are the game's values (the recursion ends at removals and at the draw).
    # Decisive positions are checked where their distance is just enough, and one ply short.
    rng = random.Random(a * 10 + b)
    checked = decisive = 0
    for _ in range(20_000):
        state = small_position(rng, a, b, 0)
        stored = tables.value(board.from_state(state)[0])
        near = stored and (stored & 127) <= 2
        if GAME.outcome(state) is not None or not (near or checked < 40):
            continue
        counters = [LIMIT - (stored & 127), LIMIT - (stored & 127) + 1] if near else [19]
        for counter in counters:
            moved = GAME.state_from_position(
                blue=[p for i, p in enumerate(POINTS) if state.blue >> i & 1],
                orange=[p for i, p in enumerate(POINTS) if state.orange >> i & 1],
                plies_without_removal=counter,
                options=NO_REPETITION,
            )
            truth = plain_value(moved, tables)
            assert table_value(tables, moved) == truth, GAME.render_text(moved)
        checked += 1
        decisive += bool(near)
        if decisive >= 5 and checked >= 40:
            break
    assert checked >= 40
    assert decisive >= (0 if (a, b) == (4, 4) else 5)


def test_distances_respect_the_no_removal_count(tables: endgame.EndgameTables) -> None:
    rng = random.Random(3)
    checked = 0
    while checked < 40:
        state = small_position(rng, 3, 3, 0)
        pos = board.from_state(state)[0]
        stored = tables.value(pos)
        if not stored or GAME.outcome(state) is not None:
            continue
        distance = stored & 127
        at_limit = (*pos[:4], LIMIT - distance)
        too_late = (*pos[:4], LIMIT - distance + 1)
        assert abs(tables.probe(at_limit)) == distance
        assert tables.probe(too_late) == 0  # one ply short: the count runs out first
        checked += 1


def test_both_cores_probe_the_same(tables: endgame.EndgameTables, folder: Path) -> None:
    path = native.find([folder])
    library = native.load(path) if path is not None else None
    assert library is not None
    endgame.declare(library)
    view = endgame.NativeTables(library, tables.values)
    rng = random.Random(4)
    for _ in range(3000):
        a, b = rng.choice(CLASSES)
        pos = board.from_state(small_position(rng, a, b, rng.randrange(LIMIT)))[0]
        assert library.morris_endgame_probe(view.handle, pos[0], pos[1], pos[4], LIMIT) == (
            tables.probe(pos)
        )


def test_the_search_converts_a_won_ending(tables: endgame.EndgameTables) -> None:
    rng = random.Random(8)
    for _ in range(100_000):
        state = small_position(rng, 3, 3, 0)
        found = tables.probe(board.from_state(state)[0])
        if found > 4 and GAME.outcome(state) is None:
            break
    assert found > 4
    core = PythonCore(LIMIT, 0)
    endgame.attach(core, tables)
    result = MorrisSearch(core, seed=1).choose(state, unlimited(), 2)
    assert result.score > WIN_BOUND
    assert result.score <= TABLE_WIN
    after = board.from_state(GAME.apply(state, result.move))[0]
    assert tables.probe(after) < 0 or GAME.outcome(GAME.apply(state, result.move)) is not None


def test_the_cache_keeps_the_tables(folder: Path) -> None:
    path, built = endgame_table_state(folder)
    assert not built
    assert path.stat().st_size > endgame.layout().size


def endgame_table_state(folder: Path) -> tuple[Path, bool]:
    return cache.ensure_table(endgame.table_name(LIMIT), folder)


def test_the_bot_reads_the_tables_once_both_hands_are_empty(folder: Path) -> None:
    options = GAME.parse_options({})
    chooser = MorrisChooser(BotConfig(seed=1, depth=2, options=options, cache_dir=folder))
    assert isinstance(chooser.search.core, native.NativeCore)
    placing = GAME.state_from_position(blue=["a1", "d2"], orange=["g7"], blue_hand=2, orange_hand=3)
    chooser(placing, unlimited())
    chooser.after_move()
    assert chooser.search.core.endgame is None
    moving = GAME.state_from_position(blue=["a1", "d2", "f4", "b6"], orange=["g7", "c5", "e3"])
    chooser(moving, unlimited())
    chooser.after_move()
    assert chooser.search.core.endgame is not None
