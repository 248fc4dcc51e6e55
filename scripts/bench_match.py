"""Benchmark the referee's own cost per ply: two instant bots replay a fixed long legal game.

Prints one line of `key=value` fields that other tools can read; medians and p99 over every ply
of every game:
- overhead_us: from the bytes of the mover's line being handed to its exchange (just read
  from the pipe) to the move having been written to the opponent (framing, the exchange, the
  rules, the clock, the write; the CPU reading and the record line come after the write, off
  this path);
- round_trip_us: from writing a line to a bot to its answer arriving (pipe and bot time included);
- relay_us: the floor, measured between the referee's games: the same two bots play the same
  game through a bare relay (two unconfined processes, each line written to the other bot as
  soon as trio's pipe has read it: no framing, no rules, no record), from the read returning to
  the write done; overhead_per_relay, the ratio of the two medians; and relay_cpu_us_per_line,
  the relay's own CPU time per line (the event loop's wake-up and the read included);
and games_per_s, whole games per second (starting and stopping both bots included), and
ref_cpu_us_per_ply, the referee process's own CPU time per ply from each game's first move to
its last.
The timestamps come from wrapping `Exchange.answer`, `Exchange.lines_of` and
`referee.bot.write_now` in this script only; the referee's code runs unchanged. The game runs at
the default isolation level, with freezing and CPU accounting on (`--no-freeze`: freezing off).

Usage: python scripts/bench_match.py [--games N] [--plies N]
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from protocols import get_game
from referee import bot as bot_module
from referee import exchange as exchange_module
from referee.match import driver
from referee.match.host import Host, choose_host
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
    """Timestamps of lines read and lines written, gathered by wrapping the bot's exchange (the
    bytes of each read are handed to its `answer`, then, unless they were the answer, to its
    `lines_of`: a line they complete arrived when the first was called) and the bot's `write_now`
    (the writes of the colours and of every forwarded move; the final move and END go another
    way)."""

    def __init__(self) -> None:
        self.arrived: list[float] = []
        self.written: list[float] = []
        self.cpu: list[float] = []  # the process's CPU time as each line arrived
        self._read_at = (0.0, 0.0)  # the CPU time and clock when the last read was handed over

    def install(self) -> None:
        original_answer = exchange_module.Exchange.answer
        original_lines = exchange_module.Exchange.lines_of
        original_write = bot_module.write_now
        probe = self

        def answer(self: Any, data: Any) -> Any:
            cpu = time.process_time()  # first: its system call is not the referee's
            probe._read_at = (cpu, time.perf_counter())
            text = original_answer(self, data)
            if text is not None:
                probe.cpu.append(cpu)
                probe.arrived.append(probe._read_at[1])
            return text

        def lines_of(self: Any, data: Any) -> Any:
            heard = original_lines(self, data)
            cpu, now = probe._read_at
            for item in heard:
                if isinstance(item, exchange_module.Answer):
                    probe.arrived.append(now)
                    probe.cpu.append(cpu)
            return heard

        def write_now(fd: int, data: bytes) -> bytes:
            rest = original_write(fd, data)
            probe.written.append(time.perf_counter())
            return rest

        exchange_module.Exchange.answer = answer  # type: ignore[method-assign]
        exchange_module.Exchange.lines_of = lines_of  # type: ignore[method-assign]
        bot_module.write_now = write_now


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Results:
    """What the games measured, in seconds."""

    def __init__(self) -> None:
        self.overheads: list[float] = []
        self.round_trips: list[float] = []
        self.relays: list[float] = []
        self.relay_cpu = 0.0  # the relay's CPU from each game's first line to its last
        self.relay_lines = 0
        self.cpu = 0.0  # the referee's CPU from each game's first line to its last
        self.plies = 0
        self.games = 0
        self.seconds = 0.0  # the referee's games, start to end


async def referee_game(
    order: GameOrder, host: Host, record: Path, probe: Probe, results: Results
) -> None:
    probe.arrived.clear()
    probe.written.clear()
    probe.cpu.clear()
    start = time.perf_counter()
    played = await driver.play(order, host, record_path=record)
    results.seconds += time.perf_counter() - start
    assert played.result is not None and len(played.plies) > 1, played.result
    results.games += 1
    results.plies += len(played.plies)
    results.cpu += probe.cpu[-1] - probe.cpu[0]
    # Writes: "orange", "blue", then one forwarded move per ply except the last.
    # Line i (0-based) arrives; the forward of that move is write i + 2.
    forwards = probe.written[2:]
    for i, arrived in enumerate(probe.arrived[: len(forwards)]):
        results.overheads.append(forwards[i] - arrived)
    # Line i answers write i + 1; the first answer of each bot includes its start-up.
    for i in range(2, len(probe.arrived)):
        results.round_trips.append(probe.arrived[i] - probe.written[i + 1])


async def relay_game(command: str, workdir: Path, plies: int, results: Results) -> None:
    """The same game between the same bots through a bare relay: each line written to the
    other bot as soon as it is read, nothing else."""
    argv = shlex.split(command)
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "cwd": workdir}
    blue = await trio.lowlevel.open_process(argv, **pipes)  # type: ignore[call-overload]
    orange = await trio.lowlevel.open_process(argv, **pipes)  # type: ignore[call-overload]
    await orange.stdin.send_all(b"orange\n")
    await blue.stdin.send_all(b"blue\n")
    mover, other = blue, orange
    cpu = 0.0
    for ply in range(plies):
        line = await mover.stdout.receive_some(65536)
        if ply == 0:
            cpu = time.process_time()
        arrived = time.perf_counter()
        if ply < plies - 1:
            os.write(other.stdin.fileno(), line)
            results.relays.append(time.perf_counter() - arrived)
        mover, other = other, mover
    results.relay_cpu += time.process_time() - cpu
    results.relay_lines += plies - 1
    for process in (blue, orange):
        await process.stdin.send_all(b"END\n")
        await process.wait()


async def run(games: int, moves: list[str], workdir: Path, freeze: bool) -> Results:
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
    results = Results()
    for number in range(games):
        order = GameOrder(
            game=GAME,
            options=OPTIONS,
            players=(
                PlayerSpec(name="a", command=command, cwd=workdir),
                PlayerSpec(name="b", command=command, cwd=workdir),
            ),
            settings=settings,
        )
        await referee_game(order, host, workdir / f"game{number}.jsonl", probe, results)
        await relay_game(command, workdir, len(moves), results)
    return results


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
        results = trio.run(run, args.games, moves, workdir, not args.no_freeze)
    us = 1e6
    overhead, relay = statistics.median(results.overheads), statistics.median(results.relays)
    fields = {
        "game": GAME,
        "plies": len(moves),
        "games": args.games,
        "freezing": "off" if args.no_freeze else "on",
        "overhead_us_p50": f"{overhead * us:.1f}",
        "overhead_us_p99": f"{percentile(results.overheads, 0.99) * us:.1f}",
        "round_trip_us_p50": f"{statistics.median(results.round_trips) * us:.1f}",
        "round_trip_us_p99": f"{percentile(results.round_trips, 0.99) * us:.1f}",
        "relay_us_p50": f"{relay * us:.1f}",
        "relay_us_p99": f"{percentile(results.relays, 0.99) * us:.1f}",
        "overhead_per_relay": f"{overhead / relay:.2f}",
        "relay_cpu_us_per_line": f"{results.relay_cpu / results.relay_lines * us:.1f}",
        "games_per_s": f"{results.games / results.seconds:.2f}",
        "ref_cpu_us_per_ply": f"{results.cpu / results.plies * us:.1f}",
    }
    print("bench_match " + " ".join(f"{key}={value}" for key, value in fields.items()))


if __name__ == "__main__":
    main()
