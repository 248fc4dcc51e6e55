"""Benchmark a tournament on a Dask cluster: what the coordinator costs, and how far it scales.

Starts a `dask scheduler` and 1, 2 and 4 `dask worker` processes on 127.0.0.1 (each with
`--slots` game slots), and plays the same round robin of bots that think `--think` seconds per
move (so that waiting, not this machine's two cores, sets the pace) through the coordinator
in this process, as `referee tournament run --cluster` does. For each worker count it prints
one line of `key=value` fields:
- games_per_min: finished games per minute of the run (wall clock);
- coordinator_cpu_ms_per_game: this process's CPU time (the Dask client thread included; the
  scheduler and the workers are other processes) per game, from the tournament's start (the
  cluster connected, the bots shipped) to its end.

Then one `projection` line for one coordinator, measured on its two hot paths alone:
- route_us_per_line: a worker's published record line routed to the runner's listener, and
  live_us_per_line: the same through Dask's events from a real worker (the client thread's
  share included);
- idle_cpu_fraction: the share of a core the coordinator spends with no game (connected, its
  lag monitor ticking), and game_ms: the CPU of one game beyond it, the largest of the runs;
- commit_ms_per_game: a returned record of `--plies` plies written, read back and committed to
  the SQLite store;
- capacity_games_per_s: games per second one core of coordinator could play through, commit
  and display (game_ms plus `--plies` live lines each, beside the steady share);
- needed_games_per_s: what 1,000 concurrent games of `--game-seconds` each ask of it, and
  load_at_1000: the fraction of one core that takes (below 1: not the bottleneck);
- hours_19900_pairings: the wall time of a 19,900-pairing (200 players, 2 games a pairing)
  tournament at 1,000 concurrent games.

Usage: python scripts/bench_cluster.py [--players N] [--think S] [--slots N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio
from rich.console import Console

from referee.app.config import load_config
from referee.app.observers import Observer
from referee.app.tournament_session import SessionSettings, play_tournament
from referee.cluster.live import LineRouter
from referee.records import Header, PlayerInfo, Ply, RecordWriter, Result, TimeControl, utc_now
from referee.tournament.events import Event
from referee.views.session_lines import SessionLines

THINKING_BOT = """\
import random, sys, time
from protocols import get_game

game = get_game("tic-tac-toe")
state = game.initial_state(None)
rng = random.Random(int(sys.argv[1]))
for line in sys.stdin:
    line = line.strip()
    if line == "END":
        break
    if line == "orange":
        continue
    if line != "blue":
        state = game.apply(state, game.parse_move(state, line))
    time.sleep(float(sys.argv[2]))
    choice = rng.choice(sorted(game.format_move(m) for m in game.legal_moves(state)))
    state = game.apply(state, game.parse_move(state, choice))
    print(choice, flush=True)
"""


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_cluster(
    workers: int, slots: int, root: Path
) -> tuple[str, list[subprocess.Popen[bytes]]]:
    from distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [
        subprocess.Popen(
            ["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            **quiet,
        )
    ]
    for i in range(workers):
        env = {**os.environ, "REFEREE_CACHE_DIR": str(root / f"cache-{i}")}
        procs.append(
            subprocess.Popen(
                [
                    "dask",
                    "worker",
                    address,
                    "--no-nanny",
                    "--nthreads",
                    str(slots),
                    "--resources",
                    f"games={slots}",
                    "--host",
                    "127.0.0.1",
                    "--no-dashboard",
                ],
                env=env,
                **quiet,
            )
        )
    for _ in range(300):
        try:
            with Client(address, timeout=5) as client:
                client.wait_for_workers(workers, timeout=60)
            return address, procs
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the cluster did not start")


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def write_tournament(root: Path, players: int, think: float, concurrency: int) -> Path:
    lines = [
        'name = "bench"',
        'game = "tic-tac-toe"',
        "seed = 7",
        "games_per_pairing = 2",
        f"concurrency = {concurrency}",
        'directory = "out"',
    ]
    for i in range(players):
        folder = root / "bots" / f"p{i}"
        folder.mkdir(parents=True, exist_ok=True)
        # Each bot its own content (a comment), as each student's is.
        (folder / "bot.py").write_text(THINKING_BOT + f"# p{i}\n")
        lines += ["[[players]]", f'name = "p{i}"']
        lines += [f"command = '{sys.executable} bot.py {{seed}} {think}'", f'cwd = "{folder}"']
    path = root / "bench.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_on(workers: int, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as scratch:
        root = Path(scratch)
        address, procs = start_cluster(workers, args.slots, root)
        try:
            path = write_tournament(root, args.players, args.think, workers * args.slots)
            loaded = load_config(path)
            quiet = Console(file=open(os.devnull, "w"))  # noqa: SIM115 - closed with the run
            marks: dict[str, tuple[float, float]] = {}

            class Marks(Observer):
                def on_event(self, event: Event) -> None:
                    # From the first game to the last: connecting and shipping are not per game.
                    if event.event in ("tournament-started", "tournament-finished"):
                        marks[event.event] = (cpu_seconds(), time.perf_counter())

            settings = SessionSettings(cluster=address)
            final = play_tournament(loaded, [SessionLines(quiet), Marks()], settings)
            quiet.file.close()
        finally:
            stop(procs)
    (cpu0, wall0), (cpu1, wall1) = marks["tournament-started"], marks["tournament-finished"]
    cpu, wall = cpu1 - cpu0, wall1 - wall0
    assert final is not None and final.complete, final
    games = final.finished
    return {
        "workers": workers,
        "slots": workers * args.slots,
        "games": games,
        "wall_s": round(wall, 2),
        "games_per_min": round(games / wall * 60, 1),
        "coordinator_cpu_s": round(cpu, 3),
        "coordinator_cpu_ms_per_game": round(cpu / games * 1000, 2),
    }


# -- the coordinator's hot paths alone --------------------------------------------------------


def sample_lines(plies: int) -> list[Header | Ply | Result]:
    info = PlayerInfo(name="p", command="python3 bot.py 1")
    header = Header(
        game="tic-tac-toe",
        options={},
        seed=1,
        players={"blue": info, "orange": info},  # type: ignore[dict-item]
        time_control=TimeControl(),
        started_at=utc_now(),
    )
    moves: list[Header | Ply | Result] = [header]
    for n in range(1, plies + 1):
        side = "blue" if n % 2 else "orange"
        moves.append(
            Ply(ply=n, side=side, received="a1", move="a1", time_ms=50.0, cpu_ms=1.0)  # type: ignore[arg-type]
        )
    moves.append(
        Result(winner=None, reason="ply-limit", detail="x", plies=plies, finished_at=utc_now())  # type: ignore[arg-type]
    )
    return moves


def route_cost(plies: int) -> float:
    """Microseconds to route one published line to a listener (validation included)."""
    lines = sample_lines(plies)
    messages = [line.model_dump(mode="json") for line in lines]

    async def main() -> float:
        router = LineRouter(trio.lowlevel.current_trio_token())
        seen: list[object] = []
        start = time.process_time()
        rounds = 200
        for r in range(rounds):
            key = f"k{r}"
            router.open(key, seen.append)
            for index, line in enumerate(messages):
                router._route({"key": key, "index": index, "line": line})
            router.close(key)
        return (time.process_time() - start) / (rounds * len(messages)) * 1e6

    return trio.run(main)


def publish_lines(key: str, line: dict[str, Any], count: int) -> int:
    """Run on a worker (pickled by value): publish `count` record lines as a game does."""
    from distributed import get_worker

    from referee.cluster.worker_task import LINES_TOPIC

    worker = get_worker()
    for index in range(count):
        worker.log_event(LINES_TOPIC, {"key": key, "index": index, "line": line})
    return count


def live_line_cost(args: argparse.Namespace, count: int = 20000) -> float:
    """Coordinator CPU (microseconds) per record line published by a worker and routed to a
    listener through Dask's events: the whole live path, the client's thread included."""
    from distributed import Client

    from referee.cluster.worker_task import LINES_TOPIC

    line = sample_lines(1)[1].model_dump(mode="json")
    with tempfile.TemporaryDirectory(prefix="bench-live-") as scratch:
        address, procs = start_cluster(1, 1, Path(scratch))
        try:
            client = Client(address)

            async def main() -> float:
                router = LineRouter(trio.lowlevel.current_trio_token())
                heard = trio.Event()
                seen: list[object] = []

                def listen(x: object) -> None:
                    seen.append(x)
                    if len(seen) == count:
                        heard.set()

                router.open("bench", listen)
                client.subscribe_topic(LINES_TOPIC, router.received)
                start = cpu_seconds()
                future = client.submit(publish_lines, "bench", line, count, pure=False)
                with trio.fail_after(300):
                    await heard.wait()
                cost = (cpu_seconds() - start) / count * 1e6
                future.release()
                return cost

            cost = trio.run(main)
            client.close()
        finally:
            stop(procs)
    return cost


def commit_cost(plies: int) -> float:
    """Milliseconds to write a returned record, read it back and commit it to a store."""
    from referee.cluster.client import _commit
    from referee.cluster.live import GameLines
    from referee.tournament.store import open_store

    with tempfile.TemporaryDirectory(prefix="bench-commit-") as scratch:
        root = Path(scratch)
        source = root / "source.jsonl"
        writer = RecordWriter(source)
        for line in sample_lines(plies):
            writer.write(line)
        writer.close()
        data = source.read_bytes()
        rounds = 200
        store = open_store(root / "t")
        from referee.tournament.store import TournamentInfo

        info = TournamentInfo(name="b", game="tic-tac-toe", config={}, schedule_key={},
                              created_at=utc_now().isoformat())  # fmt: skip
        store.create(info, ["a", "b"], [(n, 1, "a", "b", n) for n in range(1, rounds + 1)])
        start = time.process_time()
        for number in range(1, rounds + 1):
            attempt, name = store.start(number)
            record = _commit(root / "t" / name, data, GameLines(lambda line: None), lambda x: None)
            assert record.result is not None
            store.finish(number, attempt, record.result)
        cost = (time.process_time() - start) / rounds * 1000
        store.close()
        return cost


def idle_share(seconds: float = 8.0) -> float:
    """The share of a core the coordinator spends with no game at all: connected to a cluster
    (the Dask client's heartbeats) and the runner's lag monitor ticking."""
    from distributed import Client

    from referee.match.lag import LagMonitor

    with tempfile.TemporaryDirectory(prefix="bench-idle-") as scratch:
        address, procs = start_cluster(1, 1, Path(scratch))
        try:
            client = Client(address)

            async def main() -> float:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(LagMonitor().run)
                    start = cpu_seconds()
                    await trio.sleep(seconds)
                    nursery.cancel_scope.cancel()
                return (cpu_seconds() - start) / seconds

            share = trio.run(main)
            client.close()
        finally:
            stop(procs)
    return share


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--think", type=float, default=0.05, help="seconds per move")
    parser.add_argument("--slots", type=int, default=2, help="game slots per worker")
    parser.add_argument("--workers", default="1,2,4", help="worker counts to run")
    parser.add_argument("--plies", type=int, default=60, help="plies of the projected games")
    parser.add_argument("--game-seconds", type=float, default=60.0)
    args = parser.parse_args()
    runs = [run_on(int(n), args) for n in args.workers.split(",") if n]
    for run in runs:
        print(" ".join(f"{k}={v}" for k, v in run.items()))
    route_us = route_cost(args.plies)
    live_us = live_line_cost(args)
    commit_ms = commit_cost(args.plies)
    # The coordinator's CPU in a run is a cost per game (its Dask task, its record, its commit)
    # plus a steady cost per second whatever the games (the Dask client's heartbeats, the lag
    # monitor's ticks), measured alone: the largest per-game cost of the runs, each game then
    # adding its plies' live lines.
    idle = idle_share()
    per_run = [(r["coordinator_cpu_s"] - idle * r["wall_s"]) / r["games"] * 1000 for r in runs]
    game_ms = max([*per_run, commit_ms])
    per_game_s = game_ms / 1000 + (args.plies + 2) * live_us / 1e6
    capacity = (1 - idle) / per_game_s
    needed = 1000 / args.game_seconds
    games = 19900 * 2
    projection = {
        "route_us_per_line": round(route_us, 1),
        "live_us_per_line": round(live_us, 1),
        "game_ms": round(game_ms, 2),
        "commit_ms_per_game": round(commit_ms, 2),
        "capacity_games_per_s": round(capacity, 1),
        "needed_games_per_s": round(needed, 1),
        "idle_cpu_fraction": round(idle, 4),
        "load_at_1000": round(idle + needed * per_game_s, 3),
        "hours_19900_pairings": round(games / needed / 3600, 1),
    }
    print("projection " + " ".join(f"{k}={v}" for k, v in projection.items()))
    print(json.dumps({"runs": runs, "projection": projection}), file=sys.stderr)


if __name__ == "__main__":
    main()
