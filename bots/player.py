"""The protocol loop every built-in bot shares: read the colour, track the game, answer moves.

A bot keeps its own game state from the lines it receives, with the same rules the referee
uses. Only moves go to stdout; anything else goes to stderr. The loop ends on `END` or end of
input.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

from protocols.base import Game, IllegalMove, Side

Chooser = Callable[[Any], Any]  # state -> move, called only when the bot is to move


def play(
    game: Game[Any, Any, Any],
    options: Any,
    choose: Chooser,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
    log: TextIO = sys.stderr,
) -> int:
    """Run one game over the given streams; return the process exit code."""
    colour_line = stdin.readline()
    if colour_line.strip() not in (Side.BLUE.value, Side.ORANGE.value):
        print(f"expected 'blue' or 'orange', got {colour_line.strip()!r}", file=log)
        return 2
    me = Side(colour_line.strip())
    state = game.initial_state(options)
    while True:
        if game.outcome(state) is None and state.to_move is me:
            move = choose(state)
            stdout.write(game.format_move(move) + "\n")
            stdout.flush()
            state = game.apply(state, move)
            continue
        line = stdin.readline()
        if not line or line.strip() == "END":
            return 0
        try:
            state = game.apply(state, game.parse_move(state, line))
        except IllegalMove as exc:
            print(f"the referee sent a move I cannot follow: {line.strip()!r}: {exc}", file=log)
            return 3
