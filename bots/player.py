"""The protocol loop every built-in bot shares: read the colour, track the game, answer moves.

A bot keeps its own game state from the lines it receives, with the same rules the referee
uses. Only moves go to stdout; anything else goes to stderr. The loop ends on `END` or end of
input.

Each move is chosen under a `MoveClock` that starts at the earliest moment the line being
answered can have been written (for the first move: no earlier than the start of the process),
so start-up time and a slow machine are counted against the bot, not discovered by the referee.
A chooser that fails or returns an illegal move is a bug in the bot: the loop logs it and plays
the first legal move instead, so a built-in bot never loses by a fault of its own.
"""

from __future__ import annotations

import sys
import time
import traceback
from typing import Any, Protocol, TextIO

from bots.clock import MoveClock, process_start
from bots.lines import reader_for
from protocols.base import Game, IllegalMove, Side


class Chooser(Protocol):
    """Picks a move for the player to move in `state` within `clock`.

    A chooser may also have an `after_move()` method: the loop calls it once its move has been
    sent, so that work between moves is done off its clock.
    """

    def __call__(self, state: Any, clock: MoveClock) -> Any: ...


def play(
    game: Game[Any, Any, Any],
    options: Any,
    choose: Chooser,
    *,
    movetime: float = 1.0,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
    log: TextIO = sys.stderr,
) -> int:
    """Run one game over the given streams; return the process exit code."""
    reader = reader_for(stdin, process_start())
    colour_line, arrived = reader.read_line()
    colour = (colour_line or "").strip()
    if colour not in (Side.BLUE.value, Side.ORANGE.value):
        print(f"expected 'blue' or 'orange', got {colour!r}", file=log)
        return 2
    me = Side(colour)
    state = game.initial_state(options)
    while True:
        if game.outcome(state) is None and state.to_move is me:
            move = _safe_choice(game, state, choose, MoveClock(arrived, movetime), log)
            stdout.write(game.format_move(move) + "\n")
            stdout.flush()
            reader.mark_empty(time.monotonic())  # nothing can answer a move not yet sent
            state = game.apply(state, move)
            after_move = getattr(choose, "after_move", None)
            if after_move is not None:  # housekeeping while the opponent thinks
                after_move()
            continue
        line, arrived = reader.read_line()
        if line is None or line.strip() == "END":
            return 0
        try:
            state = game.apply(state, game.parse_move(state, line))
        except IllegalMove as exc:
            print(f"the referee sent a move I cannot follow: {line.strip()!r}: {exc}", file=log)
            return 3


def _safe_choice(
    game: Game[Any, Any, Any], state: Any, choose: Chooser, clock: MoveClock, log: TextIO
) -> Any:
    """The chooser's move if it is legal; otherwise (a bug) the first legal move."""
    legal = game.legal_moves(state)
    try:
        move = choose(state, clock)
    except Exception:  # a bug in a bot must not forfeit its game
        print(f"chooser failed; playing the first legal move\n{traceback.format_exc()}", file=log)
        return legal[0]
    if move not in legal:
        print(f"chooser returned an illegal move {move!r}; playing the first legal one", file=log)
        return legal[0]
    return move
