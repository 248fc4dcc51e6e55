"""Benchmark how soon a perfect bot makes its first move, with and without its cached table.

Each run starts `python -m bots perfect --game GAME` as a process, says `blue` at once and
times the answer (so interpreter start-up counts, as it does for the referee), then ends the game
and waits for the process, which is when a cold bot has saved its table. Three cases per table:
- nocache: the cache cannot be read or written (a sandboxed bot that sees none): it solves at
  start-up on every run, as before the cache existed;
- cold: an empty, writable cache directory: it solves, and saves the table after its move;
- warm: a valid table is there: it reads and verifies it.
The random bot's first move in the same game (`random`) is the reference for "as fast as any
other bot"; in-process figures show what reading and verifying a table costs. The cases take
turns within each round, and every figure is a median over the rounds.

Prints one `key=value` line per figure (seconds, milliseconds or bytes as the key says).

Usage: python scripts/bench_perfect_start.py [--runs N] [--sizes 9,10,11]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bots.solvers import cache


def first_move_seconds(bot: str, game: str, options: dict[str, int], cache_dir: Path) -> float:
    """From starting the bot's process to its first move (it plays blue)."""
    argv = [sys.executable, "-m", "bots", bot, "--game", game, "--seed", "1"]
    argv += ["--options", json.dumps(options), "--cache-dir", str(cache_dir)]
    started = time.perf_counter()
    with subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("blue\n")
        process.stdin.flush()
        move = process.stdout.readline()
        elapsed = time.perf_counter() - started
        process.stdin.write("END\n")
        process.stdin.close()
        if process.wait(timeout=120) != 0 or not move.strip():
            raise RuntimeError(f"{' '.join(argv)} failed (answered {move!r})")
    return elapsed


def median_of(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def bench_table(name: str, game: str, options: dict[str, int], runs: int, work: Path) -> None:
    table = cache.tables_for(game, _parsed(game, options))[0]
    unusable = work / "a-file" / "cache"  # below a regular file: not even root can create it
    warm = work / "warm"
    path, _ = cache.ensure_table(table, warm)

    def cold() -> float:
        fresh = Path(tempfile.mkdtemp(dir=work))
        seconds = first_move_seconds("perfect", game, options, fresh)
        if not (fresh / cache.file_name(table)).is_file():
            raise RuntimeError(f"the cold {name} bot saved no table in {fresh}")
        return seconds

    cases: dict[str, Callable[[], float]] = {
        "random": lambda: first_move_seconds("random", game, options, unusable),
        "nocache": lambda: first_move_seconds("perfect", game, options, unusable),
        "cold": cold,
        "warm": lambda: first_move_seconds("perfect", game, options, warm),
    }
    # The cases take turns in every round, so a change in the machine's load hits them alike.
    found: dict[str, list[float]] = {case: [] for case in cases}
    for _ in range(runs):
        for case, measure in cases.items():
            found[case].append(measure())
    for case, seconds in found.items():
        print(f"{name}.{case}.first_move_s={statistics.median(seconds):.3f}", flush=True)
    data = path.read_bytes()
    print(f"{name}.table_bytes={len(data)}")
    print(f"{name}.sha256_ms={median_of(runs, lambda: _ms(lambda: hashlib.sha256(data))):.2f}")
    load = cache.load_l_game if game == "l-game" else _alak_loader(options["size"])
    print(f"{name}.load_verified_ms={median_of(runs, lambda: _ms(lambda: load([warm]))):.2f}")


def _parsed(game: str, options: dict[str, int]) -> object:
    from protocols import get_game

    return get_game(game).parse_options(options)


def _alak_loader(size: int) -> Callable[[list[Path]], object]:
    return lambda dirs: cache.load_alak(dirs, size)


def _ms(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (5)")
    parser.add_argument(
        "--sizes", default="5,6,7,8,9,10,11", help="Alak board sizes (5,6,7,8,9,10,11)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        (work / "a-file").write_text("not a directory\n")
        bench_table("l-game", "l-game", {}, args.runs, work)
        for size in (int(s) for s in args.sizes.split(",")):
            bench_table(f"alak-{size}", "alak", {"size": size}, args.runs, work)


if __name__ == "__main__":
    main()
