"""Benchmark what a built-in bot costs to start: CPU time and wall time to its first move.

Each run starts `python -m bots BOT --game GAME` as a fresh process, says `blue`, reads the first
move, closes its input and waits for it to exit; the CPU time is the process's user + system
time (from the kernel, as `time` reports it), the wall time runs from the start to the first
move. A tournament starts two bots a game, so this is the fixed cost of every game played by
built-in bots.

With --baseline DIR (a checkout of another version, e.g. `git worktree add DIR REV`) each game
is run alternately with this tree and with DIR's `bots` and `protocols` (put first on the path),
and the ratio of the medians is printed as well.

Every line is `key=value`, the medians over the runs in milliseconds.

Usage: python scripts/bench_bot_start.py [--runs N] [--bot random] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["lasker-morris", "lielow", "legionnaires", "l-game", "alak", "tic-tac-toe"]


def one_start(bot: str, game: str, tree: Path) -> tuple[float, float]:
    """(CPU ms, wall ms to the first move) of one bot process run from `tree`."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bots", *bot.split(), "--game", game, "--seed", "1"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=env, cwd="/",
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("blue\n")
    proc.stdin.flush()
    move = proc.stdout.readline()
    wall = (time.perf_counter() - start) * 1000
    proc.stdin.close()
    proc.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not move.strip():
        raise SystemExit(f"{bot} made no move in {game} from {tree}")
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--bot", default="random")
    parser.add_argument("--baseline", type=Path, help="a checkout to compare with")
    args = parser.parse_args()
    trees = {"now": ROOT}
    if args.baseline is not None:
        trees["baseline"] = args.baseline.resolve()
    for game in GAMES:
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for tree in trees.values():
            one_start(args.bot, game, tree)  # warm the caches
        for _ in range(args.runs):
            for name, tree in trees.items():  # alternately, so both see the same machine
                figures[name].append(one_start(args.bot, game, tree))
        medians = {
            name: (statistics.median(c for c, _ in runs), statistics.median(w for _, w in runs))
            for name, runs in figures.items()
        }
        for name, (cpu, wall) in medians.items():
            print(f"{game}.{name}.cpu_ms={cpu:.1f}")
            print(f"{game}.{name}.first_move_ms={wall:.1f}")
        if "baseline" in medians:
            print(f"{game}.cpu_ratio={medians['now'][0] / medians['baseline'][0]:.2f}")
            print(f"{game}.first_move_ratio={medians['now'][1] / medians['baseline'][1]:.2f}")


if __name__ == "__main__":
    main()
