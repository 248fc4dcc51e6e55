"""The ladder as the server runs it, in-process with real bots: it schedules, plays, commits and
rates until stopped, and a stop voids the games being played and queues them again; paused, it
starts nothing; after the deadline, it schedules nothing new but plays what was waiting."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import trio

from referee.arena.controls import set_paused
from referee.arena.folder import Arena
from referee.arena.ladder import POLL, ladder_setup, run_ladder
from referee.arena.live_games import live_id
from referee.arena.ratings import cached
from referee.arena.rows import GameKind, GameState
from referee.arena.server import start_background
from referee.arena.sessions import CookieSigner
from referee.arena.web.site import Site
from referee.records import read_record
from tests.arena.ladder_rows import (
    PATIENCE,
    START,
    add_game,
    add_version,
    builtin_bot,
    games,
    scheduled,
)
from tests.commandline import referee


async def until(arena: Arena, done: int) -> None:
    with trio.fail_after(PATIENCE):
        while sum(g.state is GameState.DONE for g in games(arena)) < done:
            await trio.sleep(0.1)


async def rated(arena: Arena, games: int) -> None:
    """Until the cached ratings count at least `games` games (a fit lags the games it follows:
    it waits so as to take a share of a core at most)."""
    with trio.fail_after(PATIENCE):
        while sum(r.games for r in cached(arena.store.reader)) < 2 * games:
            await trio.sleep(0.1)


async def test_the_ladder_plays_commits_and_rates_until_stopped(arena: Arena) -> None:
    versions = [add_version(arena, name, builtin_bot("random", n)) for n, name in
                enumerate(("alice", "bob", "carol"), 1)]  # fmt: skip
    scheduled(arena, concurrency=2, placement_games=2, min_meetings=1)
    async with trio.open_nursery() as nursery:
        await nursery.start(run_ladder, arena, ladder_setup(arena))
        await until(arena, 8)
        await rated(arena, 8)
        nursery.cancel_scope.cancel()
    rows = games(arena)
    assert not [g for g in rows if g.state is GameState.RUNNING]  # the stop voided them
    for g in rows:
        if g.state is GameState.DONE:
            assert g.blue in versions and g.orange in versions and g.blue != g.orange
            record = read_record(arena.paths.root / f"games/{g.id}.jsonl")
            assert record.result is not None and record.header.seed == g.seed
        if g.state is GameState.VOID:
            assert g.reason == "interrupted"
            assert [r.id for r in rows if r.replaces == g.id], "a voided game is queued again"
    # Placement first: each version's first two games.
    first: dict[int, list[GameKind]] = {}
    for g in rows:
        if g.replaces is None:
            for v in (g.blue, g.orange):
                first.setdefault(v, []).append(g.kind)
    assert all(kinds[:2] == [GameKind.PLACEMENT] * 2 for kinds in first.values())
    # Both colours: the games of each pair split evenly by colour, meeting by meeting.
    colours = Counter((g.blue, g.orange) for g in rows if g.replaces is None)
    for (blue, orange), count in colours.items():
        assert colours[(orange, blue)] == count
    # Rated from the games that count: the fit caught up with the first eight (above), and
    # never counts a game that does not.
    ratings = cached(arena.store.reader)
    assert {r.version_id for r in ratings} == set(versions)
    counted = sum(g.state is GameState.DONE for g in rows)
    assert 2 * 8 <= sum(r.games for r in ratings) <= 2 * counted


async def test_paused_the_ladder_starts_nothing_until_resumed(arena: Arena) -> None:
    for n, name in enumerate(("alice", "bob"), 1):
        add_version(arena, name, builtin_bot("random", n))
    set_paused(arena.store.writer, START, None, True)
    async with trio.open_nursery() as nursery:
        await nursery.start(run_ladder, arena, ladder_setup(arena))
        await trio.sleep(3 * POLL)  # the scheduler and the players have looked, and waited
        assert games(arena) == []
        set_paused(arena.store.writer, START, None, False)
        await until(arena, 1)
        nursery.cancel_scope.cancel()


async def test_after_the_deadline_only_the_waiting_games_are_played(arena: Arena) -> None:
    a = add_version(arena, "alice", builtin_bot("random", 1))
    b = add_version(arena, "bob", builtin_bot("random", 2))
    waiting = add_game(arena, a, b, state="pending")
    deadline = arena.config.deadline.model_copy(update={"at": START})  # long past
    arena.config = arena.config.model_copy(update={"deadline": deadline})
    async with trio.open_nursery() as nursery:
        await nursery.start(run_ladder, arena, ladder_setup(arena))
        await until(arena, 1)
        await trio.sleep(3 * POLL)
        nursery.cancel_scope.cancel()
    assert [(g.id, g.state) for g in games(arena)] == [(waiting, GameState.DONE)]


def test_serve_refuses_a_cluster_address_it_cannot_read(tmp_path: Path) -> None:
    assert referee("arena", "new", "ar", cwd=tmp_path).returncode == 0
    done = referee("arena", "serve", "ar", "--port", "0", "--cluster", "no way", cwd=tmp_path)
    assert done.returncode == 2
    assert "--cluster: 'no way' is not a cluster address" in done.stderr
    assert not (tmp_path / "ar" / "arena.log").exists()  # refused before anything started


async def test_the_servers_ladder_games_are_watched_live(arena: Arena) -> None:
    for n, name in enumerate(("alice", "bob"), 1):
        add_version(arena, name, builtin_bot("random", n))
    scheduled(arena, concurrency=1, placement_games=2, min_meetings=1)
    site = Site(arena.store, arena.config, CookieSigner(arena.secret))
    async with trio.open_nursery() as nursery:
        await start_background(nursery, arena, site)
        await until(arena, 1)
        nursery.cancel_scope.cancel()
    played = [g for g in games(arena) if g.state is GameState.DONE]
    watched = site.live.get(live_id(played[0].id))
    assert watched is not None and watched.result is not None
    assert watched.result.winner == played[0].winner
