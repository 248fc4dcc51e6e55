"""Benchmark the referee's own cost per ply: two instant bots replay a fixed long legal game.

Prints one line of `key=value` fields that other tools can read; medians and p99 over every ply
of every game:
- overhead_us: from the bytes of the mover's line being handed to the line framer (just read
  from the pipe) to the move having been written to the opponent (framing, the exchange, the
  rules, the clock, the write; the CPU reading and the record line come after the write, off
  this path);
- round_trip_us: from writing a line to a bot to its answer arriving (pipe and bot time included);
and games_per_s, whole games per second (starting and stopping both bots included), and
ref_cpu_us_per_ply, the referee process's own CPU time per ply (bot starts and ends included).
The timestamps come from wrapping `LineFramer.feed` and `referee.bot.send_now` in this script
only; the referee's code runs unchanged. The game runs at the default isolation level, with
freezing and CPU accounting on (`--no-freeze`: freezing off).

Usage: python scripts/bench_match.py [--games N] [--plies N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from protocols import framing, get_game
from referee import bot as bot_module
from referee.match import driver
from referee.match.host import choose_host
from referee.match.order import GameOrder
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec

GAME = "lasker-morris"
OPTIONS = {"no_capture_limit": 0, "repetition": 0}  # so that a fixed game can be long

REPLAY_BOT = """\
import sys
moves = open(sys.argv[1]).read().split("\\n")
colour = sys.stdin.readline().strip()
mine = moves[0::2] if colour == "blue" else moves[1::2]
out = sys.stdout
if colour == "blue":
    out.write(mine.pop(0) + "\\n"); out.flush()
for line in sys.stdin:
    if line.strip() == "END" or not mine:
        break
    out.write(mine.pop(0) + "\\n"); out.flush()
"""


def fixed_game(plies: int, seed: int = 1) -> list[str]:
    """A legal game of Lasker Morris of (up to) `plies` plies, the same for every run.

    Moves that remove a stone are avoided where possible, so that the game stays long.
    """
    game = get_game(GAME)
    rng = random.Random(seed)
    state = game.initial_state(game.parse_options(OPTIONS))
    lines = []
    while len(lines) < plies and game.outcome(state) is None:
        moves = list(game.legal_moves(state))
        quiet = [m for m in moves if game.format_move(m).endswith(" r0")]
        move = rng.choice(quiet or moves)
        lines.append(game.format_move(move))
        state = game.apply(state, move)
    return lines


class Probe:
    """Timestamps of lines read and lines written, gathered by wrapping the framer's `feed`
    (each Line it returns arrived when it was called) and the bot's `send_now` (the writes of
    the colours and of every forwarded move; the final move and END go another way)."""

    def __init__(self) -> None:
        self.arrived: list[float] = []
        self.written: list[float] = []

    def install(self) -> None:
        original_feed = framing.LineFramer.feed
        original_send = bot_module.send_now
        probe = self

        def feed(self: Any, data: Any) -> Any:
            now = time.perf_counter()
            events = original_feed(self, data)
            probe.arrived.extend(now for event in events if isinstance(event, framing.Line))
            return events

        async def send_now(stream: Any, data: bytes) -> None:
            await original_send(stream, data)
            probe.written.append(time.perf_counter())

        framing.LineFramer.feed = feed  # type: ignore[method-assign]
        bot_module.send_now = send_now


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(
    games: int, moves: list[str], workdir: Path, freeze: bool
) -> tuple[list[float], list[float], float, float]:
    moves_file = workdir / "moves.txt"
    moves_file.write_text("\n".join(moves))
    bot_file = workdir / "replay_bot.py"
    bot_file.write_text(REPLAY_BOT)
    for made in (moves_file, bot_file):
        made.chmod(0o644)  # a bot running as a user of its own reads them
    command = f"{sys.executable} {bot_file} {moves_file}"
    settings = MatchSettings(random_assignment=False, exit_grace=1.0, freeze=freeze)
    host = choose_host(settings.isolation)  # once, as a run does
    probe = Probe()
    probe.install()
    overheads: list[float] = []
    round_trips: list[float] = []
    start = time.perf_counter()
    cpu = time.process_time()
    for number in range(games):
        probe.arrived.clear()
        probe.written.clear()
        order = GameOrder(
            game=GAME,
            options=OPTIONS,
            players=(
                PlayerSpec(name="a", command=command, cwd=workdir),
                PlayerSpec(name="b", command=command, cwd=workdir),
            ),
            settings=settings,
        )
        record = await driver.play(order, host, record_path=workdir / f"game{number}.jsonl")
        assert record.result is not None and len(record.plies) == len(moves), record.result
        # Writes: "orange", "blue", then one forwarded move per ply except the last.
        # Line i (0-based) arrives; the forward of that move is write i + 2.
        forwards = probe.written[2:]
        for i, arrived in enumerate(probe.arrived[: len(forwards)]):
            overheads.append(forwards[i] - arrived)
        # Line i answers write i + 1; the first answer of each bot includes its start-up.
        for i in range(2, len(probe.arrived)):
            round_trips.append(probe.arrived[i] - probe.written[i + 1])
    cpu_per_ply = (time.process_time() - cpu) / (games * len(moves))
    elapsed = time.perf_counter() - start
    return overheads, round_trips, games / elapsed, cpu_per_ply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--plies", type=int, default=400)
    parser.add_argument(
        "--no-freeze", action="store_true", help="do not freeze the bot that is not on move"
    )
    args = parser.parse_args()
    moves = fixed_game(args.plies)
    # Under the system's temporary folder, whatever folder the script runs from, and open to
    # others: as root, each bot runs as a user of its own, which must enter its folder
    # (mkdtemp makes it 0700). It runs in that folder, not in ours, which may be private.
    with tempfile.TemporaryDirectory(prefix="bench-match-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        overheads, round_trips, rate, cpu = trio.run(
            run, args.games, moves, workdir, not args.no_freeze
        )
    us = 1e6
    fields = {
        "game": GAME,
        "plies": len(moves),
        "games": args.games,
        "freezing": "off" if args.no_freeze else "on",
        "overhead_us_p50": f"{statistics.median(overheads) * us:.1f}",
        "overhead_us_p99": f"{percentile(overheads, 0.99) * us:.1f}",
        "round_trip_us_p50": f"{statistics.median(round_trips) * us:.1f}",
        "round_trip_us_p99": f"{percentile(round_trips, 0.99) * us:.1f}",
        "games_per_s": f"{rate:.2f}",
        "ref_cpu_us_per_ply": f"{cpu * us:.1f}",
    }
    print("bench_match " + " ".join(f"{key}={value}" for key, value in fields.items()))


if __name__ == "__main__":
    main()
