"""Benchmark what isolation costs: bot start-up and per-move overhead at each isolation level.

For every level this machine offers (basic, sandbox, users, cgroup, and all of them together; the
sandbox once per program that can make it here: the compiled helper and bubblewrap):
- start-up: from asking `open_bot` for the bot to its first answer, for a tiny Python echo bot;
- per move: one `ask` round trip with the same bot (write a line, receive the echo), with fair-CPU
  freezing on (the match default: thaw before the write, freeze after the answer) and with the
  CPU time measured, as in a real game; for the basic level also without freezing, which shows
  what freezing itself costs.
Reported as medians, and as ratios to the basic level. The same interpreter runs the bot at every
level (one that a bot's own user may run), so the levels are compared on equal terms.

Where the referee is root, levels without users are run as `LEVEL+root` (a root referee runs bots
as root only when told), and every level cuts the network as it does in a real run.

Usage: python scripts/bench_isolation.py [--starts N] [--moves N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio

from referee.bot import open_bot
from referee.isolation.bot_users import DEFAULT_UID_BASE, unreachable_reason
from referee.isolation.levels import (
    Isolation,
    IsolationSettings,
    IsolationUnavailable,
    choose,
    detect,
    parse_level,
)

LEVELS = ["basic", "sandbox", "users", "cgroup", "sandbox+users+cgroup"]
SANDBOX_PROGRAMS = ["helper", "bubblewrap"]
ECHO = "import sys\nfor line in sys.stdin:\n    print(line.strip(), flush=True)\n"


def interpreter() -> str:
    for candidate in (sys.executable, "/usr/bin/python3"):
        if (
            os.geteuid() != 0
            or unreachable_reason(Path(candidate), DEFAULT_UID_BASE, os.X_OK) is None
        ):
            return candidate
    return sys.executable


async def start_once(command: str, isolation: Isolation, cwd: Path) -> float:
    start = time.perf_counter()
    async with open_bot(command, cwd=cwd, isolation=isolation, exit_grace=0) as bot:
        await bot.ask("hello", trio.current_time() + 60)
        return time.perf_counter() - start


async def moves(
    command: str, isolation: Isolation, cwd: Path, count: int, freeze: bool = True
) -> list[float]:
    times = []
    async with open_bot(command, cwd=cwd, isolation=isolation, freeze=freeze, exit_grace=0) as bot:
        for number in range(count + 1):
            start = time.perf_counter()
            await bot.ask(f"m{number}", trio.current_time() + 60)
            if number:  # the first answer includes start-up
                times.append(time.perf_counter() - start)
    return times


def available(level: str) -> str | None:
    """None if `level` can run here, else why not."""
    checks = detect().checks
    missing = [checks[f] for f in parse_level(level) or () if not checks[f].available]
    return "; ".join(c.reason for c in missing) or None


def settings_of(level: str) -> list[tuple[str, IsolationSettings]]:
    """The runs of one level: (label, settings), one per sandbox program that works here."""
    as_root = os.geteuid() == 0 and "users" not in level
    named = f"{level}+root" if as_root else level
    if "sandbox" not in level:
        return [(level, IsolationSettings(level=named))]
    runs = []
    for program in SANDBOX_PROGRAMS:
        settings = IsolationSettings(level=named, sandbox_program=program)
        try:
            choose(settings)
        except IsolationUnavailable:
            continue
        runs.append((f"{level} ({program})", settings))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--starts", type=int, default=30, help="start-ups per level (30)")
    parser.add_argument("--moves", type=int, default=1000, help="moves per level (1000)")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="bench-isolation-", dir="/tmp"))
    directory.chmod(0o755)
    script = directory / "echo.py"
    script.write_text(ECHO)
    script.chmod(0o644)
    command = f"{interpreter()} {script}"
    print(f"bot: {command}; {args.starts} start-ups and {args.moves} moves per level")
    print(f"{'level':33} {'start-up':>10} {'ratio':>6} {'per move':>10} {'ratio':>6}")
    base: tuple[float, float] | None = None
    for level in LEVELS:
        why = available(level)
        if why is not None:
            print(f"{level:33} skipped: {why}")
            continue
        for label, settings in settings_of(level):
            isolation = choose(settings)
            starts = [
                trio.run(start_once, command, isolation, directory) for _ in range(args.starts)
            ]
            per_move = trio.run(moves, command, isolation, directory, args.moves)
            start_ms = statistics.median(starts) * 1000
            move_us = statistics.median(per_move) * 1e6
            base = base or (start_ms, move_us)
            print(
                f"{label:33} {start_ms:8.1f}ms {start_ms / base[0]:6.2f} "
                f"{move_us:8.0f}us {move_us / base[1]:6.2f}"
            )
        if level == "basic":
            plain = trio.run(moves, command, isolation, directory, args.moves, False)
            plain_us = statistics.median(plain) * 1e6
            print(f"{'basic, no freezing':33} {'':17} {plain_us:8.0f}us {plain_us / base[1]:6.2f}")
    script.unlink()
    directory.rmdir()


if __name__ == "__main__":
    main()
