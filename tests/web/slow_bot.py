"""A random bot that waits before each move, so a browser can watch a game unfold.

Run as `python tests/web/slow_bot.py GAME SEED DELAY`. It speaks the protocol itself (colour
line, moves, END) and uses only the rules, so it depends on nothing else in the project.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from protocols import get_game


def main() -> int:
    game_name, seed, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    game = get_game(game_name)
    rng = random.Random(seed)
    me = sys.stdin.readline().strip()
    state = game.initial_state(game.parse_options({}))
    while True:
        if state.to_move.value == me and game.outcome(state) is None:
            time.sleep(delay)
            move = rng.choice(list(game.legal_moves(state)))
            print(game.format_move(move), flush=True)
            state = game.apply(state, move)
            continue
        line = sys.stdin.readline()
        if not line or line.strip() == "END":
            return 0
        state = game.apply(state, game.parse_move(state, line))


if __name__ == "__main__":
    sys.exit(main())
