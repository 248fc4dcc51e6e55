"""The ladder's games played in game workers, processes of their own at a lower CPU priority
than the server: a worker killed mid-game voids its game (never a bot's loss), which is played
again and counts once."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any, cast

import trio

from referee.arena.folder import Arena
from referee.arena.ladder import Ladder, ladder_setup, run_ladder
from referee.arena.play_pool import GameWorker, PlayPool
from referee.arena.play_worker import NICE
from referee.arena.rows import Game, GameState
from referee.match.host import Host
from referee.records import read_record
from tests.arena.ladder_rows import PATIENCE, add_version, builtin_bot, games, scheduled, script_bot


def pool_of(ladder: Ladder) -> PlayPool:
    assert isinstance(ladder.play, PlayPool), "the ladder plays in game workers"
    return ladder.play


async def mid_game(arena: Arena) -> Game:
    """A running game whose record shows a move."""
    with trio.fail_after(PATIENCE):
        while True:
            for game in games(arena):
                path = arena.paths.root / f"games/{game.id}.jsonl"
                running = game.state is GameState.RUNNING and path.exists()
                if running and len(path.read_text().splitlines()) >= 2:
                    return game
            await trio.sleep(0.05)


async def until(test: Callable[[], bool]) -> None:
    with trio.fail_after(PATIENCE):
        while not test():
            await trio.sleep(0.1)


async def test_the_games_are_played_by_workers_at_a_lower_priority(arena: Arena) -> None:
    for n, name in enumerate(("alice", "bob"), 1):
        add_version(arena, name, builtin_bot("random", n))
    scheduled(arena, concurrency=2, placement_games=2, min_meetings=1)
    async with trio.open_nursery() as nursery:
        ladder = await nursery.start(run_ladder, arena, ladder_setup(arena))
        workers = pool_of(ladder).workers
        assert len(workers) == 2  # `[schedule] concurrency` of them
        assert all(w.pid != os.getpid() for w in workers)
        lower = min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICE)  # 19: the lowest there is
        assert all(os.getpriority(os.PRIO_PROCESS, w.pid) == lower for w in workers)
        await until(lambda: any(g.state is GameState.DONE for g in games(arena)))
        nursery.cancel_scope.cancel()
    done = [g for g in games(arena) if g.state is GameState.DONE]
    record = read_record(arena.paths.root / f"games/{done[0].id}.jsonl")
    assert record.result is not None and not record.result.void
    assert all(w.process.returncode is not None for w in workers)  # they exited with it


async def test_a_worker_killed_mid_game_voids_it_and_it_is_played_again(arena: Arena) -> None:
    for seed, name in enumerate(("alice", "bob"), 1):
        add_version(arena, name, *script_bot(seed, delay=0.5))  # a move takes half a second
    scheduled(arena, concurrency=1, placement_games=2, min_meetings=1)
    async with trio.open_nursery() as nursery:
        ladder = await nursery.start(run_ladder, arena, ladder_setup(arena))
        pool = pool_of(ladder)
        cut = await mid_game(arena)
        (worker,) = [w for w in pool.workers if w.flights]
        os.kill(worker.pid, signal.SIGKILL)

        def replayed() -> bool:
            rows = games(arena)
            return any(g.replaces == cut.id and g.state is GameState.DONE for g in rows)

        await until(replayed)
        nursery.cancel_scope.cancel()
    rows = {g.id: g for g in games(arena)}
    voided = rows[cut.id]
    assert voided.state is GameState.VOID and voided.winner is None
    assert voided.reason == "infrastructure"
    assert f"the game worker playing it (pid {worker.pid}) was killed by SIGKILL" in str(
        voided.detail
    )
    record = read_record(arena.paths.root / f"games/{cut.id}.jsonl")  # whole, chain and all
    assert record.result is not None and record.result.void and record.result.winner is None
    assert record.result.reason.value == "infrastructure" and record.plies
    (replay,) = [g for g in rows.values() if g.replaces == cut.id]
    assert (replay.blue, replay.orange, replay.seed) == (cut.blue, cut.orange, cut.seed)
    # Nothing counted twice: each game replaced at most once, and a new worker played on.
    replaced = [g.replaces for g in rows.values() if g.replaces is not None]
    assert len(replaced) == len(set(replaced))
    assert worker not in pool.workers


async def test_a_game_stopped_with_the_server_ends_its_record_with_a_result(arena: Arena) -> None:
    for seed, name in enumerate(("alice", "bob"), 1):
        add_version(arena, name, *script_bot(seed, delay=0.5))
    scheduled(arena, concurrency=1, placement_games=2, min_meetings=1)
    async with trio.open_nursery() as nursery:
        await nursery.start(run_ladder, arena, ladder_setup(arena))
        cut = await mid_game(arena)
        nursery.cancel_scope.cancel()  # the server stops (Ctrl-C)
    record = read_record(arena.paths.root / f"games/{cut.id}.jsonl")
    assert record.result is not None and record.result.void
    assert record.result.reason.value == "interrupted"
    row = {g.id: g for g in games(arena)}[cut.id]
    assert row.state is GameState.VOID and row.reason == "interrupted"


class _Worker:
    """A worker as the pool chooses among them: alive, with the games it holds."""

    def __init__(self, settled: list[bool]) -> None:
        self.alive = True
        self.flights = {n: _Flight(s) for n, s in enumerate(settled)}

    playing = GameWorker.playing


class _Flight:
    def __init__(self, settled: bool) -> None:
        self.settled = settled


async def test_a_game_goes_to_the_worker_whose_games_are_only_closing() -> None:
    closing: Any = _Worker([True])  # one game each: this one's result is known
    playing: Any = _Worker([False])
    async with trio.open_nursery() as nursery:
        pool = PlayPool(nursery, host=cast(Host, None), size=2)
        for order in ([playing, closing], [closing, playing]):
            pool.workers = order
            assert await pool._worker() is closing
