"""`kill -9` of a real `referee arena serve` in the middle of a game, and a restart: no bot is
left running (the supervisors kill them when the referee dies), the game cut short is voided
and played again, and nothing is lost or counted twice."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.arena.folder import new_arena, open_arena
from referee.arena.ratings import recompute
from referee.records import final_chain, read_record, utc_now
from referee.verify import verify_record
from tests.arena.ladder_rows import add_version, script_bot
from tests.isolation.arena import leftover_processes

PATIENCE = 300.0  # seconds: long enough for a busy machine; never a measure of speed


def serve(root: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "referee", "arena", "serve", str(root), "--port", "0"],
        cwd=root.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def rows(root: Path, query: str) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"file:{root / 'arena.sqlite'}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute(query).fetchall()
    finally:
        db.close()


def wait_for(what: str, test: Callable[[], object]) -> None:
    deadline = time.monotonic() + PATIENCE
    while not test():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


def mid_game(root: Path) -> list[int]:
    """The running games whose records show at least one move."""
    found = []
    for game_id, record in rows(root, "SELECT id, record FROM games WHERE state = 'running'"):
        path = root / str(record)
        if path.exists() and len(path.read_text().splitlines()) >= 3:
            found.append(int(game_id))
    return found


def test_kill_9_mid_game_then_a_restart_loses_and_double_counts_nothing(tmp_path: Path) -> None:
    root = tmp_path / "arena"
    new_arena(root, game="tic-tac-toe", name="kill")
    config = root / "arena.toml"
    text = config.read_text().replace("# concurrency = 2", "concurrency = 2")
    config.write_text(text.replace("placement_games = 6", "placement_games = 2"))
    arena = open_arena(root)
    try:
        for seed, name in enumerate(("alice", "bob", "carol"), 1):
            add_version(arena, name, *script_bot(seed, delay=1.0))  # a move takes a second
    finally:
        arena.close()
    folders = sorted((root / "versions").iterdir())

    server = serve(root)
    try:
        wait_for("a game in progress", lambda: mid_game(root))
        assert leftover_processes(folders), "the bots of the games in progress are running"
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    wait_for("every bot gone with its referee", lambda: not leftover_processes(folders))
    # Left as they were: the next start finds them.
    running = [r[0] for r in rows(root, "SELECT id FROM games WHERE state = 'running'")]
    assert running
    done_before = {r[0] for r in rows(root, "SELECT id FROM games WHERE state = 'done'")}

    server = serve(root)
    try:

        def replayed() -> bool:
            query = "SELECT replaces, state FROM games WHERE replaces IS NOT NULL"
            states = dict(rows(root, query))
            return all(states.get(g) == "done" for g in running)

        wait_for("the games cut short played again", replayed)
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=120) == 0, server.stderr.read() if server.stderr else ""
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert not leftover_processes(folders)

    games = rows(root, "SELECT id, state, reason, replaces, record, chain, winner FROM games")
    by_id = {g[0]: g for g in games}
    for game_id in running:
        state, reason = by_id[game_id][1], by_id[game_id][2]
        assert (state, reason) == ("void", "interrupted")
    # Nothing left half done: no game is running after a clean stop.
    assert not [g for g in games if g[1] == "running"]
    # Nothing counted twice: each game replaced at most once, and at most one attempt of a
    # game (a chain of replays) counts.
    replaced = Counter(g[3] for g in games if g[3] is not None)
    assert max(replaced.values()) == 1
    done = [g for g in games if g[1] == "done"]
    assert {g[0] for g in done} >= done_before  # nothing lost
    for _, _, _, replaces, record, chain, _ in done:
        if replaces is not None:
            assert by_id[replaces][1] == "void"  # what it replaced does not count
        path = root / str(record)
        assert final_chain(path) == chain  # the committed record, whole
        assert verify_record(read_record(path)).ok
    # The ratings never count a game twice (the last fit may not have seen the last games);
    # fitted again from the store, they count each game once.
    rated = rows(root, "SELECT SUM(games) FROM ratings")[0][0]
    assert rated <= 2 * len(done)
    arena = open_arena(root)
    try:
        fitted = recompute(arena.store.writer, utc_now(), arena.config.ratings.min_games)
    finally:
        arena.close()
    assert sum(r.games for r in fitted) == 2 * len(done)
