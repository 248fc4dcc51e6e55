"""Fixtures of the cluster tests: tournaments of deterministic bots, the referee run as a
process, and a Dask cluster of real processes on 127.0.0.1 (a `dask scheduler` and `dask worker`s,
each worker with a bot cache of its own), always torn down."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ReadableFolders

pytest.importorskip("distributed", reason="the cluster extra: pip install '.[test]'")

# A tic-tac-toe bot that thinks DELAY seconds a move and then plays a random legal move, from
# a generator seeded by its command line: the same games whatever machine plays them.
SLOW_BOT = """\
import random, sys, time
from protocols import get_game

DELAY = {delay}
game = get_game("tic-tac-toe")
state = game.initial_state(None)
rng = random.Random(int(sys.argv[1]))


def move():
    global state
    time.sleep(DELAY)
    choice = rng.choice(sorted(game.format_move(m) for m in game.legal_moves(state)))
    state = game.apply(state, game.parse_move(state, choice))
    sys.stdout.write(choice + "\\n")
    sys.stdout.flush()


for line in sys.stdin:
    line = line.strip()
    if line == "END":
        break
    if line == "orange":
        continue
    if line != "blue":
        state = game.apply(state, game.parse_move(state, line))
    move()
"""


def write_bot(folder: Path, delay: float, extra: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(SLOW_BOT.format(delay=delay) + extra)


def builtin_config(path: Path, directory: str, players: int = 4, seed: int = 5) -> Path:
    """A round robin of built-in bots with seeded games (deterministic)."""
    lines = [
        f'name = "cluster {directory}"',
        'game = "tic-tac-toe"',
        f"seed = {seed}",
        "games_per_pairing = 2",
        f'directory = "{directory}"',
    ]
    kinds = ["random", "greedy"]
    for i in range(players):
        lines += ["[[players]]", f'name = "p{i}"']
        lines.append(f'command = "builtin:{kinds[i % 2]} --seed {{seed}}"')
    path.write_text("\n".join(lines) + "\n")
    return path


def folder_config(path: Path, directory: str, bots: dict[str, Path], concurrency: int) -> Path:
    """A round robin of script bots, each in a folder of its own (`cwd`)."""
    lines = [
        f'name = "cluster {directory}"',
        'game = "tic-tac-toe"',
        "seed = 11",
        "games_per_pairing = 2",
        f"concurrency = {concurrency}",
        f'directory = "{directory}"',
    ]
    for name, folder in bots.items():
        lines += ["[[players]]", f'name = "{name}"']
        lines += [f"command = '{sys.executable} bot.py {{seed}}'", f'cwd = "{folder}"']
    path.write_text("\n".join(lines) + "\n")
    return path


def referee(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "referee", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def run_to_end(path: Path, *extra: str) -> str:
    """Run the tournament to its end; what it said on stderr."""
    proc = referee("tournament", "run", str(path), "--quiet", *extra, cwd=path.parent)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return err


def results(path: Path) -> dict[str, Any]:
    proc = referee("tournament", "results", str(path), "--format", "json", cwd=path.parent)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def verify(path: Path) -> None:
    proc = referee("tournament", "verify", str(path), cwd=path.parent)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    assert "every record holds" in out


def same_games(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (g["number"], g["blue"], g["orange"], g["winner"], g["reason"], g["plies"])
        for g in report["games"]
    ]


def moves(directory: Path) -> dict[str, list[str]]:
    """Each record's moves and seed, by file name."""
    found = {}
    for record in sorted((directory / "games").glob("*.jsonl")):
        lines = [json.loads(x) for x in record.read_text().splitlines()]
        found[record.name] = [str(lines[0]["seed"])] + [x["move"] for x in lines[1:-1]]
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class DaskCluster:
    """A scheduler and its workers, each a process of its own."""

    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    caches: list[Path] = field(default_factory=list)

    def stop(self) -> None:
        # The workers first: a worker whose scheduler went first waits to reconnect.
        for group in (self.workers, [self.scheduler]):
            for proc in group:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            for proc in group:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def wait_for_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout=30) as client:
        client.wait_for_workers(count, timeout=60)


def start_cluster(root: Path, workers: int = 2, slots: int = 2) -> DaskCluster:
    """`dask scheduler` and `workers` `dask worker`s (no nanny: a killed worker stays dead)."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen(
        ["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        **quiet,  # type: ignore[call-overload]
    )
    cluster = DaskCluster(address, scheduler)
    try:
        for i in range(workers):
            cache = root / f"worker-cache-{i}"
            env = {**os.environ, "REFEREE_CACHE_DIR": str(cache)}
            worker = subprocess.Popen(
                ["dask", "worker", address, "--no-nanny", "--nthreads", str(slots),
                 "--resources", f"games={slots}", "--host", "127.0.0.1", "--no-dashboard"],
                env=env, **quiet,  # type: ignore[call-overload]
            )  # fmt: skip
            cluster.workers.append(worker)
            cluster.caches.append(cache)
        deadline = time.monotonic() + 60
        while True:
            try:
                wait_for_workers(address, workers)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    except BaseException:
        cluster.stop()
        raise
    return cluster


@pytest.fixture(scope="module")
def dask_cluster(readable_folders: ReadableFolders) -> Iterator[DaskCluster]:
    """A scheduler and two workers of two game slots each, for a module's tests."""
    cluster = start_cluster(readable_folders.mktemp("dask"))
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(autouse=True)
def no_resource_tracker_left() -> Iterator[None]:
    """A `LocalCluster` started in the test process starts multiprocessing's resource tracker,
    a child process that would otherwise outlive the test and show up in the tests that check
    that nothing is left behind (tests/isolation/test_stress.py counts this process's
    children). Stopped once the test's cluster is closed."""
    yield
    from multiprocessing import resource_tracker

    resource_tracker._resource_tracker._stop()  # type: ignore[attr-defined]
