"""The arena's ladder on a Dask cluster (`referee arena serve --cluster`): each version shipped
by content hash, and the same games as the ladder plays here for the same seeds; the server
itself, on a scheduler with two workers, plays, commits and stops cleanly."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

from referee.arena.folder import Arena, new_arena, open_arena
from referee.arena.games import PlayOrder, play_game, play_match
from referee.arena.ladder import ladder_setup
from referee.arena.ladder_store import add_meetings, take_next
from referee.arena.remote import open_remote
from referee.arena.rows import GameKind
from referee.arena.scheduler import Meeting
from referee.cluster.address import parse_address
from referee.match.lag import LagMonitor
from referee.records import read_record
from referee.verify import verify_record
from tests.arena.ladder_rows import START, add_version, script_bot
from tests.cluster.conftest import DaskCluster
from tests.conftest import ReadableFolders

PATIENCE = 300.0  # seconds, for a busy machine


def ladder_arena(root: Path) -> list[int]:
    new_arena(root, game="tic-tac-toe", name="cluster ladder")
    arena = open_arena(root)
    try:
        versions = [
            add_version(arena, name, *script_bot(seed))
            for seed, name in enumerate(("alice", "bob", "carol"), 3)
        ]
        pairs = zip(versions, [*versions[1:], versions[0]], strict=True)
        meetings = [Meeting(a, b, GameKind.LADDER) for a, b in pairs]
        add_meetings(arena.store.writer, START, meetings, arena.config)
    finally:
        arena.close()
    return versions


def moves_and_results(root: Path) -> dict[int, tuple[object, ...]]:
    found = {}
    for path in sorted((root / "games").glob("*.jsonl")):
        record = read_record(path)
        assert record.result is not None and verify_record(record).ok
        found[int(path.stem)] = (
            record.header.seed,
            [p.move for p in record.plies],
            record.result.winner,
            record.result.why,
        )
    return found


async def play_all(arena: Arena, play: PlayOrder) -> None:
    while (game := take_next(arena.store.writer, START)) is not None:
        played = await play_game(arena.store, arena.paths.root, arena.config, game, play)
        assert not played.result.void, played.result


async def test_the_cluster_plays_the_ladder_s_games_as_they_are_played_here(
    readable_folders: ReadableFolders, dask_cluster: DaskCluster
) -> None:
    here = readable_folders.mktemp("arena-here") / "arena"
    ladder_arena(here)
    there = here.parent.with_name(here.parent.name + "-there") / "arena"
    shutil.copytree(here, there)  # the same store: the same games, seeds and colours
    arena = open_arena(here)
    try:
        setup = ladder_setup(arena)
        assert setup.host is not None
        await play_all(arena, partial(play_match, host=setup.host, lag=LagMonitor()))
    finally:
        arena.close()
    arena = open_arena(there)
    try:
        async with open_remote(parse_address(dask_cluster.address), arena.paths.log) as remote:
            await play_all(arena, remote)
            assert len(remote.digests) == 3  # each version packed once
        remote_games = moves_and_results(there)
    finally:
        arena.close()
        shutil.rmtree(there.parent, ignore_errors=True)
    local = moves_and_results(here)
    assert len(local) == 6
    assert remote_games == local


def test_serve_on_a_cluster_plays_and_commits_the_ladder(
    readable_folders: ReadableFolders, dask_cluster: DaskCluster
) -> None:
    root = readable_folders.mktemp("arena-served") / "arena"
    new_arena(root, game="tic-tac-toe", name="served")
    arena = open_arena(root)
    try:
        for seed, name in enumerate(("alice", "bob", "carol"), 1):
            add_version(arena, name, *script_bot(seed))
    finally:
        arena.close()
    server = subprocess.Popen(
        [sys.executable, "-m", "referee", "arena", "serve", str(root), "--port", "0",
         "--cluster", dask_cluster.address],
        cwd=root.parent, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + PATIENCE
        while True:
            with sqlite3.connect(f"file:{root / 'arena.sqlite'}?mode=ro", uri=True) as db:
                done = db.execute("SELECT COUNT(*) FROM games WHERE state = 'done'").fetchone()[0]
            if done >= 4:
                break
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            assert time.monotonic() < deadline, "the cluster played no games"
            time.sleep(0.2)
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=120) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    with sqlite3.connect(f"file:{root / 'arena.sqlite'}?mode=ro", uri=True) as db:
        states = dict(db.execute("SELECT state, COUNT(*) FROM games GROUP BY state").fetchall())
        records = [r[0] for r in db.execute("SELECT record FROM games WHERE state = 'done'")]
    assert "running" not in states and states["done"] >= 4
    for record in records:  # written here from what the workers sent back
        assert verify_record(read_record(root / record)).ok
    log = (root / "arena.log").read_text()
    assert f"playing on the cluster {dask_cluster.address}" in log
