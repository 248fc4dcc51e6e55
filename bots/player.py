"""The protocol loop every built-in bot shares: read the colour, track the game, answer moves.

A bot keeps its own game state from the lines it receives, with the same rules the referee
uses. Only moves go to stdout; anything else goes to stderr. The loop ends on `END` or end of
input.

Each move is chosen under a `MoveClock` that starts at the earliest moment the line being
answered can have been written (for the first move: no earlier than the start of the process),
so start-up time and a slow machine are counted against the bot, not discovered by the referee.
A chooser that fails or returns an illegal move is a bug in the bot: the loop logs it and plays
the first legal move instead, so a built-in bot never loses by a fault of its own.

Every built-in bot understands the protocol's `position` extension: a game that starts from an
opening tells it `position K` and the opening's K moves right after its colour, in the same write
(so blue, which moves at once in a game from the start, can tell the two apart without waiting);
the bot follows the moves with the rules, then plays on from there.
"""

from __future__ import annotations

import sys
import time
import traceback
from typing import Any, Protocol, TextIO

from bots.clock import MoveClock, process_start
from bots.lines import LineReader, TextLineReader, reader_for
from protocols.base import Game, IllegalMove, Side

POSITION = "position"  # the protocol extension for games that start from an opening


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
    pending: tuple[str | None, float] | None = None
    if me is Side.ORANGE or reader.line_ready():  # blue without an opening has nothing to read
        line, arrived = reader.read_line()
        if line is not None and line.startswith(POSITION + " "):
            followed = _follow_opening(game, state, line, reader, log)
            if followed is None:
                return 3
            state, arrived = followed
        else:
            pending = (line, arrived)  # orange in a game from the start: blue's first move
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
        line, arrived = pending or reader.read_line()
        pending = None
        if line is None or line.strip() == "END":
            return 0
        try:
            state = game.apply(state, game.parse_move(state, line))
        except IllegalMove as exc:
            print(f"the referee sent a move I cannot follow: {line.strip()!r}: {exc}", file=log)
            return 3


def _follow_opening(
    game: Game[Any, Any, Any],
    state: Any,
    header: str,
    reader: LineReader | TextLineReader,
    log: TextIO,
) -> tuple[Any, float] | None:
    """The state after the opening announced by `header` (`position K`), read move by move, and
    when its last line arrived (a bot to move answers that line); None, logged, if it cannot be
    followed."""
    count = header.split()[1] if len(header.split()) == 2 else ""
    if not count.isdigit():
        print(f"the referee sent a position line I cannot read: {header!r}", file=log)
        return None
    arrived = 0.0
    for _ in range(int(count)):
        line, arrived = reader.read_line()
        try:
            state = game.apply(state, game.parse_move(state, line or ""))
        except IllegalMove as exc:
            print(f"the opening has a move I cannot follow: {line!r}: {exc}", file=log)
            return None
    return state, arrived


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
