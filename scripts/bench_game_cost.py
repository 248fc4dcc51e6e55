"""Benchmark the fixed cost of one tournament game: what a game costs besides its moves.

A tournament of two instant bots that replay a fixed 10-ply game of Lasker Morris (ended by the
no-capture limit, so every game ends the same, normal way) is played at concurrency 1 in this
process, at the referee's default isolation (or `--isolation`). Every bot start is time-stamped,
and the phases of each game are timed by wrapping the referee's own functions in this script
only (the referee's code runs unchanged). One line of `key=value` fields per figure:

    spawn_to_spawn_ms   from a game's first bot start to the next game's (median, min)
    game_ms             the whole game as the match plays it (bots started to record returned)
    open_ms             starting both bots, until both programs are being executed
    moves_ms            the 10 plies, from the first question to END (the bots' own start-up
                        included: the first answer waits for the interpreter)
    close_ms            END to both bots gone and cleaned up
    store_ms            the tournament store's start and finish commits of one game
    ref_cpu_ms          the referee's own CPU time per game

Usage: python scripts/bench_game_cost.py [--games N] [--isolation LEVEL]
"""

from __future__ import annotations

import argparse
import functools
import itertools
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_match import REPLAY_BOT, fixed_game  # scripts/ is on the path
from bench_tournament import match_settings, own_cpu_seconds, run_tournament, write_config

import referee.bot as bot_module
from referee.match.driver import _Game as Game
from referee.match.seats import Seats
from referee.tournament.store import Store

PLIES = 10
OPTIONS = "game_options = { no_capture_limit = 10, repetition = 0 }\n"

timings: dict[str, list[float]] = defaultdict(list)
spawns: list[float] = []


def timed(owner: Any, name: str, label: str) -> None:
    """Wrap the coroutine function `owner.name` so that each call's duration is kept."""
    original: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(original)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await original(*args, **kwargs)
        finally:
            timings[label].append(time.perf_counter() - start)

    setattr(owner, name, wrapper)


def timed_sync(owner: Any, name: str, label: str) -> None:
    original: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            timings[label].append(time.perf_counter() - start)

    setattr(owner, name, wrapper)


def install_probes() -> None:
    original_start = bot_module.start_confined

    async def stamped(*args: Any, **kwargs: Any) -> Any:
        spawns.append(time.perf_counter())
        return await original_start(*args, **kwargs)

    bot_module.start_confined = stamped  # type: ignore[assignment]
    timed(Game, "play", "game")
    timed(Seats, "open", "open")
    timed(Game, "_turns", "moves")
    timed_sync(Store, "start", "store")
    timed_sync(Store, "finish", "store")
    original_send_end = Game._send_end

    async def send_end(self: Game, *args: Any) -> None:
        await original_send_end(self, *args)
        self._end_sent_at = time.perf_counter()  # type: ignore[attr-defined]

    Game._send_end = send_end  # type: ignore[method-assign]
    original_finish = Game._finish

    def finish(self: Game, *args: Any, **kwargs: Any) -> Any:
        sent = getattr(self, "_end_sent_at", None)
        if sent is not None:
            timings["close"].append(time.perf_counter() - sent)
        return original_finish(self, *args, **kwargs)

    Game._finish = finish  # type: ignore[method-assign]


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f}" if values else "nan"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--isolation", default=None, help="bot isolation level (default: auto)")
    args = parser.parse_args()
    install_probes()
    # Under the system's temporary folder (a sandboxed bot has a /tmp of its own, but sees the
    # folder its command names), open to others: bots with a user of their own must reach
    # their files, whatever folder the script runs from.
    with tempfile.TemporaryDirectory(prefix="bench-game-cost-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        (workdir / "moves.txt").write_text("\n".join(fixed_game(PLIES)))
        (workdir / "replay_bot.py").write_text(REPLAY_BOT)
        command = f"{sys.executable} {workdir / 'replay_bot.py'} {workdir / 'moves.txt'}"
        extra = OPTIONS + match_settings(args.isolation, True)
        path = write_config(workdir, [command, command], "lasker-morris", 1, args.games, extra)
        cpu0 = own_cpu_seconds()
        wall, _ = run_tournament(path)
        cpu = own_cpu_seconds() - cpu0
    games = len(timings["game"])
    starts = spawns[::2]  # both bots of a game start together: one stamp per game
    gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
    fields = {
        "games": games,
        "isolation": args.isolation or "auto",
        "spawn_to_spawn_ms": ms(gaps),
        "spawn_to_spawn_min_ms": f"{min(gaps) * 1000:.1f}" if gaps else "nan",
        "game_ms": ms(timings["game"]),
        "open_ms": ms(timings["open"]),
        "moves_ms": ms(timings["moves"]),
        "close_ms": ms(timings["close"]),
        "store_ms": ms(timings["store"]),
        "wall_per_game_ms": f"{wall / max(games, 1) * 1000:.1f}",
        "ref_cpu_ms": f"{cpu / max(games, 1) * 1000:.1f}",
    }
    print("bench_game_cost " + " ".join(f"{k}={v}" for k, v in fields.items()))


if __name__ == "__main__":
    main()
