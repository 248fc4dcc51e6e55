"""Count move-tree leaves from a game's start position, with timings.

Usage: `python scripts/perft.py GAME DEPTH`.
"""

from __future__ import annotations

import argparse
import time

from protocols import get_game
from protocols.perft import perft


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("game")
    parser.add_argument("depth", type=int)
    args = parser.parse_args()
    game = get_game(args.game)
    state = game.initial_state(None)
    for depth in range(1, args.depth + 1):
        start = time.perf_counter()
        leaves = perft(game, state, depth)
        elapsed = time.perf_counter() - start
        rate = leaves / elapsed if elapsed > 0 else float("inf")
        print(f"{game.name} depth {depth}: {leaves:,} leaves in {elapsed:.3f} s ({rate:,.0f}/s)")


if __name__ == "__main__":
    main()
