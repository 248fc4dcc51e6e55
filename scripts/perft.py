"""Perft: count the leaves of the legal-move tree at an exact depth (a check of move generation).

Usage: `python scripts/perft.py GAME DEPTH` prints the counts of depths 1..DEPTH from the game's
start position, with timings; the rules tests import `perft` to compare counts with known ones.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from protocols import get_game
from protocols.base import Game


def perft(game: Game[Any, Any, Any], state: Any, depth: int) -> int:
    """Leaves at exactly `depth` plies below `state`; a finished game has no moves to count."""
    if depth == 0:
        return 1
    moves = game.legal_moves(state)
    if depth == 1:
        return len(moves)
    return sum(perft(game, game.apply(state, move), depth - 1) for move in moves)


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
