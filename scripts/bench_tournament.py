"""Benchmark whole tournaments in one referee process.

Default: a round robin of 8 instant bots (the built-in random bot, or the commands given as
arguments), 2 games per pairing, at concurrency 1, 2 and 4. Per configuration it prints one line
of `key=value` fields that other tools can read:

    games_per_min   finished games per minute of wall time
    ref_cpu_pct     the referee's own CPU time as a percentage of one core
    ref_cpu_share   the referee's CPU time as a share of all CPU time used on the machine
    ref_ms_per_game the referee's CPU time per game (starting and stopping the bots included)
    ref_us_per_ply  the same per move played (an upper bound of its per-move cost under load)
    ply_ms_p50/p99  each move's round trip as the referee measured it (write to answer), each
                    bot's first move (program start-up) left out
    wait_ms_p50/p99 the part of it the bot did not spend on its own CPU (where measured)

`--scale N` instead runs N games at once (default 200) of replay bots that think `--think` s
(0.05) per move, and reports false timeouts, the extra latency per move over the thinking time
(p50, p99) and the referee's memory per game (peak resident memory over the baseline, / N).

`--course` instead compares this referee with the course referee (`cs4341-referee`): a tournament
of a fixed 110-ply game against one course referee process per game, and one whole-process game
of each; see scripts/bench_course.py for the figures, how CPU is separated and how to get the
course referee (`--course-referee PATH` to its checkout, or `--course-command CMD`).

Usage:
    python scripts/bench_tournament.py [BOT_COMMAND ...] [--concurrency 1 2 4] [--game G]
    python scripts/bench_tournament.py --scale 200 [--think 0.05] [--plies 100]
    python scripts/bench_tournament.py --course [--course-referee PATH] [--games 20] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio
from bench_course import add_comparison_arguments, run_comparison  # scripts/ is on the path
from bench_match import fixed_game  # the same long legal game

from protocols.base import Reason
from referee.app.config import load_config
from referee.records import read_record
from referee.tournament.resume import open_tournament
from referee.tournament.runner import Runner
from referee.tournament.store import GameState, open_view

DEFAULT_BOT = "builtin:random --seed {seed}"

REPLAY_BOT = """\
import sys, time
think = float(sys.argv[2])
moves = open(sys.argv[1]).read().split("\\n")
colour = sys.stdin.readline().strip()
mine = moves[0::2] if colour == "blue" else moves[1::2]
def move():
    time.sleep(think)
    sys.stdout.write(mine.pop(0) + "\\n")
    sys.stdout.flush()
if colour == "blue":
    move()
for line in sys.stdin:
    if line.strip() == "END" or not mine:
        break
    move()
"""


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def machine_busy_seconds() -> float:
    """CPU seconds spent by the whole machine (all cores) so far, from /proc/stat."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def write_config(
    directory: Path,
    commands: list[str],
    game: str,
    concurrency: int,
    games_per_pairing: int = 2,
    extra: str = "",
) -> Path:
    players = "".join(
        f'[[players]]\nname = "bot{i}"\ncommand = {json.dumps(c)}\n' for i, c in enumerate(commands)
    )
    path = directory / f"c{concurrency}.toml"
    path.write_text(
        f'name = "bench c{concurrency}"\ngame = "{game}"\nseed = 1\n'
        f"games_per_pairing = {games_per_pairing}\n"
        f"concurrency = {concurrency}\nmax_replays = 0\n{extra}\n{players}"
    )
    return path


def match_settings(isolation: str | None, freeze: bool) -> str:
    """The config's [match] table for the chosen isolation (default: the referee's own)."""
    text = "[match]\n" + ("" if freeze else "freeze = false\n")
    if isolation:
        text += f'[match.isolation]\nlevel = "{isolation}"\n'
    return text


def run_tournament(path: Path, sample_memory: list[float] | None = None) -> tuple[float, float]:
    """Play the tournament at `path` in this process; the wall time and the referee's worst
    lag (seconds)."""
    loaded = load_config(path)
    store, _ = open_tournament(loaded)
    runner = Runner(loaded, store)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            if sample_memory is not None:
                nursery.start_soon(sample_rss, sample_memory)
            await runner.run(handle_signals=False)
            nursery.cancel_scope.cancel()

    start = time.perf_counter()
    try:
        trio.run(main)
    finally:
        store.close()
    return time.perf_counter() - start, runner.lag.max_lag


async def sample_rss(samples: list[float]) -> None:
    while True:
        samples.append(resident_mb())
        await trio.sleep(0.2)


def games_of(path: Path) -> tuple[list[Any], list[Any]]:
    """The store rows and the plies of every finished game, less each bot's first move (which
    includes starting the program)."""
    view = open_view(load_config(path).directory)
    rows = view.games()
    plies = []
    for row in rows:
        record_path = view.record_path(row)
        if row.state is GameState.FINISHED and record_path is not None:
            plies += read_record(record_path).plies[2:]
    view.close()
    return rows, plies


def bench_concurrency(
    workdir: Path, commands: list[str], game: str, concurrency: int, match: str
) -> str:
    path = write_config(workdir, commands, game, concurrency, extra=match)
    cpu0, busy0 = own_cpu_seconds(), machine_busy_seconds()
    wall, lag = run_tournament(path)
    cpu, busy = own_cpu_seconds() - cpu0, machine_busy_seconds() - busy0
    rows, plies = games_of(path)
    finished = sum(row.state is GameState.FINISHED for row in rows)
    round_trips = [p.time_ms for p in plies]
    waits = [p.time_ms - p.cpu_ms for p in plies if p.cpu_ms is not None]
    fields = {
        "games": finished,
        "void": sum(row.state is GameState.VOID for row in rows),
        "timeouts": sum(row.reason is Reason.TIMEOUT for row in rows),
        "plies": len(plies),
        "wall_s": f"{wall:.2f}",
        "games_per_min": f"{finished / wall * 60:.1f}",
        "ref_cpu_pct": f"{cpu / wall * 100:.1f}",
        "ref_cpu_share": f"{cpu / busy:.3f}" if busy > 0 else "nan",
        "ref_ms_per_game": f"{cpu / max(finished, 1) * 1e3:.1f}",
        "ref_us_per_ply": f"{cpu / max(len(plies), 1) * 1e6:.0f}",
        "ply_ms_p50": f"{percentile(round_trips, 0.5):.2f}",
        "ply_ms_p99": f"{percentile(round_trips, 0.99):.2f}",
        "wait_ms_p50": f"{percentile(waits, 0.5):.2f}",
        "wait_ms_p99": f"{percentile(waits, 0.99):.2f}",
        "max_lag_ms": f"{lag * 1000:.1f}",
    }
    head = f"bench_tournament mode=round-robin players={len(commands)} concurrency={concurrency}"
    return head + " " + " ".join(f"{k}={v}" for k, v in fields.items())


def bench_scale(
    workdir: Path, games: int, think: float, plies: int, timeout: float, match: str
) -> str:
    """`games` games at once, each between two replay bots of a fixed `plies`-ply game."""
    (workdir / "moves.txt").write_text("\n".join(fixed_game(plies)))
    (workdir / "replay_bot.py").write_text(REPLAY_BOT)
    command = f"{sys.executable} {workdir / 'replay_bot.py'} {workdir / 'moves.txt'} {think}"
    # A gauntlet of one challenger against `games` others, one game each: `games` games, all
    # started at once (the challenger's program runs in every one of them).
    extra = (
        'format = "gauntlet"\nchallengers = ["bot0"]\n'
        "game_options = { no_capture_limit = 0, repetition = 0 }\n"  # bench_match.OPTIONS
        f"[time_control]\nmove_timeout = {timeout}\ngrace = 0.0\nstartup_allowance = 60.0\n"
        f"{match}"
    )
    commands = [command] * (games + 1)
    path = write_config(workdir, commands, "lasker-morris", games, 1, extra)
    baseline = resident_mb()
    samples: list[float] = []
    cpu0 = own_cpu_seconds()
    wall, lag = run_tournament(path, samples)
    cpu = own_cpu_seconds() - cpu0
    rows, all_plies = games_of(path)
    extra_ms = [p.time_ms - think * 1000 for p in all_plies]
    fields = {
        "games": sum(row.state is GameState.FINISHED for row in rows),
        "void": sum(row.state is GameState.VOID for row in rows),
        "false_timeouts": sum(row.reason is Reason.TIMEOUT for row in rows),
        "plies": len(all_plies),
        "wall_s": f"{wall:.2f}",
        "extra_ms_p50": f"{percentile(extra_ms, 0.5):.2f}",
        "extra_ms_p99": f"{percentile(extra_ms, 0.99):.2f}",
        "rss_base_mb": f"{baseline:.1f}",
        "rss_peak_mb": f"{max(samples, default=baseline):.1f}",
        "mb_per_game": f"{(max(samples, default=baseline) - baseline) / games:.3f}",
        "ref_cpu_pct": f"{cpu / wall * 100:.1f}",
        "ref_us_per_ply": f"{cpu / max(len(all_plies), 1) * 1e6:.0f}",
        "max_lag_ms": f"{lag * 1000:.1f}",
    }
    head = f"bench_tournament mode=scale games_at_once={games} think_s={think}"
    return head + " " + " ".join(f"{k}={v}" for k, v in fields.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bots", nargs="*", help=f"bot commands (default: 8 x {DEFAULT_BOT!r})")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--game", default="lasker-morris")
    parser.add_argument("--scale", type=int, default=None, metavar="N", help="N games at once")
    parser.add_argument("--think", type=float, default=0.05, help="scale: seconds per move")
    parser.add_argument("--plies", type=int, default=100, help="scale: plies per game")
    parser.add_argument("--timeout", type=float, default=1.0, help="scale: seconds per move")
    parser.add_argument("--isolation", default=None, help="bot isolation level (default: auto)")
    parser.add_argument("--no-freeze", action="store_true", help="do not freeze the idle bot")
    parser.add_argument(
        "--course", action="store_true", help="compare with the course referee (bench_course.py)"
    )
    add_comparison_arguments(parser)
    args = parser.parse_args()
    if args.course:
        run_comparison(args)  # its own bots and game; --isolation applies to this referee
        return
    match = match_settings(args.isolation, not args.no_freeze)
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)  # sandboxed bots run as other users and must read their files
        if args.scale:
            print(bench_scale(workdir, args.scale, args.think, args.plies, args.timeout, match))
            return
        commands = args.bots or [DEFAULT_BOT] * 8
        for concurrency in args.concurrency:
            line = bench_concurrency(workdir, commands, args.game, concurrency, match)
            print(line, flush=True)


if __name__ == "__main__":
    main()
