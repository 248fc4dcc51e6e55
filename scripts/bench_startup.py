"""Benchmark how fast the `referee` command starts: wall time of the light commands, and how long
`referee play` takes to get its first bot running.

Each figure runs the command N times as a fresh process (after one untimed run that warms the
caches) and reports the median and the minimum, in seconds:
- `referee --help`, `referee games`, `referee --version`: from just before the process is started
  to its exit;
- `referee play lasker-morris`: from just before the process is started to the first moment a bot
  runs. Each bot is a tiny Python script that writes `time.time()` on its stderr as its first
  statement and exits (so the game ends at once); the record keeps each bot's stderr (a bot may
  write no file the referee can read: a sandboxed bot's folder is read-only, its /tmp its own);
  the earliest of the two is the first spawn. Nothing is subtracted:
  the figure includes the referee's start-up, the isolation's and the bot interpreter's own
  start (run with -S, so that only the interpreter core counts);
- the same game, to the moment the referee asks for the first bot process
  (`trio.lowlevel.open_process`, timed by a wrapper that runs the referee as `python -m referee`
  does): the referee's own part of the figure above, without the launcher and the bot's
  interpreter.
The command is the `referee` script installed beside this interpreter (`python -m referee` if
there is none). With --imports it also prints the 10 largest cumulative import times of
`referee --help` (`python -X importtime`, the median over the runs, in microseconds).

Every line is `key=value`, one figure per line.

Usage: python scripts/bench_startup.py [--runs N] [--imports] [--isolation LEVEL]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from referee.records import read_record

LIGHT = {"help": ["--help"], "games": ["games"], "version": ["--version"]}
GAME = "lasker-morris"
BOT = """\
import sys, time
sys.stderr.write(repr(time.time()))
"""
# Runs `referee ARGS` as `python -m referee` does, noting when the first process is asked for.
SPAWN_PROBE = """\
import runpy, sys, time, trio
stamp = sys.argv[1]
sys.argv = ["referee", *sys.argv[2:]]
open_process = trio.lowlevel.open_process
async def noted(*args, **kwargs):
    with open(stamp, "a") as out:
        out.write(repr(time.time()) + "\\n")
    return await open_process(*args, **kwargs)
trio.lowlevel.open_process = noted
runpy.run_module("referee", run_name="__main__", alter_sys=True)
"""
IMPORT_LINE = re.compile(r"import time:\s*\d+\s*\|\s*(\d+)\s*\|\s*(\S+)")


def referee_command() -> list[str]:
    """The installed `referee` script run by this interpreter, else `python -m referee`."""
    script = Path(sys.executable).parent / "referee"
    if script.is_file():
        return [sys.executable, str(script)]
    return [sys.executable, "-m", "referee"]


def wall_times(command: list[str], runs: int) -> list[float]:
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return times


def first_spawn(
    referee: list[str], workdir: Path, isolation: str | None, probe: bool = False
) -> float:
    """Seconds from just before `referee play` starts to the first statement of the first bot
    (with `probe`: to the referee asking for the first bot process)."""
    spawned = workdir / "spawn.time"
    record = workdir / "records" / "game.jsonl"
    for stale in (spawned, record):
        stale.unlink(missing_ok=True)
    bot = workdir / "bot.py"
    command = [
        *([sys.executable, "-c", SPAWN_PROBE, str(spawned)] if probe else referee),
        "play",
        GAME,
        "-p1",
        f"{sys.executable} -S {bot}",
        "-p2",
        f"{sys.executable} -S {bot}",
        "--record",
        str(record),
        "--timeout",
        "1",
        "--startup",
        "1",
    ]
    if isolation is not None:
        command += ["--isolation", isolation]
    launched = time.time()
    done = subprocess.run(
        command, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    if probe:
        started = [float(t) for t in spawned.read_text().split()] if spawned.exists() else []
    else:
        result = read_record(record).result if record.exists() else None
        tails = [] if result is None else [b.stderr_tail for b in result.bots.values()]
        started = [float(tail) for tail in tails if tail.strip()]
    if not started:
        raise RuntimeError(f"no bot ran (exit code {done.returncode}): {done.stderr.strip()}")
    return min(started) - launched


def spawn_times(
    referee: list[str], runs: int, isolation: str | None, probe: bool = False
) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        workdir = Path(tmp)
        # Open to every user: a bot may run as a user of its own, in this folder.
        workdir.chmod(0o755)
        (workdir / "bot.py").write_text(BOT)
        (workdir / "bot.py").chmod(0o644)
        first_spawn(referee, workdir, isolation, probe)  # warms the caches
        return [first_spawn(referee, workdir, isolation, probe) for _ in range(runs)]


def import_times(command: list[str], runs: int) -> list[tuple[str, float]]:
    """The 10 largest cumulative import times of `command` (the median over `runs`), in us."""
    cumulative: dict[str, list[int]] = defaultdict(list)
    for _ in range(runs):
        done = subprocess.run(
            [command[0], "-X", "importtime", *command[1:]],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=True,
        )
        for line in done.stderr.splitlines():
            if found := IMPORT_LINE.match(line):
                cumulative[found[2]].append(int(found[1]))
    medians = [(name, statistics.median(times)) for name, times in cumulative.items()]
    return sorted(medians, key=lambda item: -item[1])[:10]


def report(key: str, times: list[float]) -> None:
    print(f"{key}_median_s={statistics.median(times):.4f}")
    print(f"{key}_min_s={min(times):.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of each command (10)")
    parser.add_argument(
        "--imports", action="store_true", help="the top 10 cumulative imports of --help"
    )
    parser.add_argument(
        "--isolation", default=None, help="--isolation for `play` (default: the referee's)"
    )
    args = parser.parse_args()
    referee = referee_command()
    print(f"command={' '.join(referee)}")
    print(f"runs={args.runs}")
    for key, extra in LIGHT.items():
        report(key, wall_times([*referee, *extra], args.runs))
    report("play_first_spawn", spawn_times(referee, args.runs, args.isolation))
    report("play_spawn_call", spawn_times(referee, args.runs, args.isolation, probe=True))
    if args.imports:
        for name, micros in import_times([*referee, "--help"], args.runs):
            print(f"help_import_cumulative_us[{name}]={micros:.0f}")


if __name__ == "__main__":
    main()
