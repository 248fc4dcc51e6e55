"""Speed of the Lasker Morris engine: nodes per second and depth reached per move, both cores.

    python scripts/bench_morris.py [--movetime 1.0] [--positions 20]

The positions are the start and positions of seeded games (the engine at depth 3 against
random moves, so placing, moving and flying all occur). Each core searches each position as the
bot would with `--movetime` seconds (a fresh engine per position), and the medians of nodes per
second and depth are printed, with the ratio of the compiled core's speed to Python's.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable

from bots.clock import MoveClock, unlimited
from bots.morris import native
from bots.morris.engine import Core, MorrisSearch
from bots.morris.pysearch import PythonCore
from bots.solvers import cache
from protocols.base import Side
from protocols.lasker_morris.rules import GAME, LaskerMorrisState


def positions(count: int, seed: int) -> list[LaskerMorrisState]:
    rng = random.Random(seed)
    found = [GAME.initial_state()]
    while len(found) < count:
        state = GAME.initial_state()
        search = MorrisSearch(PythonCore(20, 3, table_bits=12), seed)
        while GAME.outcome(state) is None and len(found) < count:
            if state.to_move is Side.BLUE:
                move = search.choose(state, unlimited(), 2).move
            else:
                move = rng.choice(list(GAME.legal_moves(state)))
            state = GAME.apply(state, move)
            if rng.random() < 0.15 and GAME.outcome(state) is None:
                found.append(state)
    return found


def measure(
    make: Callable[[], Core], states: list[LaskerMorrisState], movetime: float
) -> tuple[float, float]:
    speeds, depths = [], []
    for state in states:
        core = make()
        result = MorrisSearch(core, 1).choose(state, MoveClock(time.monotonic(), movetime))
        speeds.append(result.nodes_per_second)
        depths.append(result.depth)
    return statistics.median(speeds), statistics.median(depths)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--movetime", type=float, default=1.0)
    parser.add_argument("--positions", type=int, default=20)
    args = parser.parse_args()
    states = positions(args.positions, 5)
    path = native.find(cache.search_dirs()) or native.build(cache.cache_dir())
    library = native.load(path) if path is not None else None
    rows: list[tuple[str, Callable[[], Core]]] = [("Python", lambda: PythonCore(20, 3))]
    if library is not None:
        rows.insert(0, ("C", lambda: native.NativeCore(library, 20, 3)))
    speeds = {}
    print(f"{len(states)} positions, {args.movetime} s per move")
    for name, make in rows:
        speed, depth = measure(make, states, args.movetime)
        speeds[name] = speed
        print(f"{name:7} core: median {speed:,.0f} nodes/s, median depth {depth}")
    if len(speeds) == 2:
        print(f"compiled / Python speed: {speeds['C'] / speeds['Python']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
