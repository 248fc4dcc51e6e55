"""Connect Four as a referee game plug-in: the rules, pure and immutable.

Seven columns `a`..`g`, six rows `1` (bottom) .. `6`. Blue drops first. A move is one column
letter: the disc falls to the lowest empty square of that column. Four discs of one colour in
a row (across, up, or on a diagonal) win; a full board with no four is a draw.

Wire format: one token, the column (`d`). Squares, as `touched` and the web view name them, are
column then row (`d1`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from protocols.base import (
    BadSyntax,
    Game,
    IllegalMove,
    Outcome,
    Reason,
    Side,
    Touched,
    split_tokens,
)
from protocols.options import GameOptions

COLUMNS = "abcdefg"
ROWS = 6
FOUR = "four-in-a-row"
FULL = "board-full"
_MARK = {Side.BLUE: "X", Side.ORANGE: "O"}
# The four directions a line can run in: across, up, and the two diagonals.
_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


class ConnectFourOptions(GameOptions):
    """Connect Four has no options; the model exists because every game validates its own."""


@dataclass(frozen=True, slots=True)
class ConnectFourState:
    """A position: each column's discs from the bottom up ('X' blue, 'O' orange).

    Frozen and hashable, so the search bot can use positions as transposition-table keys.
    """

    columns: tuple[str, ...]
    to_move: Side
    ply: int
    winner: Side | None = None  # set by the move that made four in a row

    def disc(self, column: int, row: int) -> str | None:
        stack = self.columns[column]
        return stack[row] if 0 <= row < len(stack) else None


def _square(column: int, row: int) -> str:
    return f"{COLUMNS[column]}{row + 1}"


def _makes_four(state: ConnectFourState, column: int, row: int, mark: str) -> bool:
    """Whether a disc `mark` at (column, row) completes a line of four."""
    for dc, dr in _DIRECTIONS:
        count = 1
        for sign in (1, -1):
            c, r = column + sign * dc, row + sign * dr
            while 0 <= c < len(COLUMNS) and state.disc(c, r) == mark:
                count += 1
                c, r = c + sign * dc, r + sign * dr
        if count >= 4:
            return True
    return False


class ConnectFour(Game[ConnectFourState, int, ConnectFourOptions]):
    """Connect Four on the standard 7 x 6 board. A move is a column index 0..6."""

    name: ClassVar[str] = "connect-four"
    options_model: ClassVar[type[GameOptions]] = ConnectFourOptions
    endings: ClassVar[Mapping[str, str]] = {
        FOUR: "the player who moved last has four discs in a row and wins",
        FULL: "the board is full without four in a row: a draw",
    }

    def initial_state(self, options: ConnectFourOptions | None = None) -> ConnectFourState:
        return ConnectFourState(("",) * len(COLUMNS), Side.BLUE, 0)

    def legal_moves(self, state: ConnectFourState) -> Sequence[int]:
        if state.winner is not None:
            return ()
        return tuple(c for c, stack in enumerate(state.columns) if len(stack) < ROWS)

    def apply(self, state: ConnectFourState, move: int) -> ConnectFourState:
        mark = _MARK[state.to_move]
        row = len(state.columns[move])
        won = _makes_four(state, move, row, mark)
        columns = tuple(
            stack + mark if c == move else stack for c, stack in enumerate(state.columns)
        )
        winner = state.to_move if won else None
        return ConnectFourState(columns, state.to_move.other, state.ply + 1, winner)

    def outcome(self, state: ConnectFourState) -> Outcome | None:
        if state.winner is not None:
            return Outcome(state.winner, Reason.GAME_ENDING, f"{state.winner} made four", FOUR)
        if all(len(stack) == ROWS for stack in state.columns):
            return Outcome(None, Reason.GAME_ENDING, "no four on a full board", FULL)
        return None

    def parse_move(self, state: ConnectFourState, line: str) -> int:
        tokens = split_tokens(line)
        if len(tokens) != 1:
            raise BadSyntax(f"expected one column letter a..g, got {len(tokens)} tokens")
        token = tokens[0]
        column = COLUMNS.find(token) if len(token) == 1 else -1
        if column < 0:
            raise BadSyntax(f"{token!r} is not a column: columns are the lowercase letters a..g")
        if self.outcome(state) is not None:
            raise IllegalMove("the game is over")
        if len(state.columns[column]) >= ROWS:
            raise IllegalMove(f"{token}: the column is full")
        return column

    def format_move(self, move: int) -> str:
        return COLUMNS[move]

    def squares(self, state: ConnectFourState) -> Sequence[str]:
        return tuple(_square(c, r) for r in range(ROWS) for c in range(len(COLUMNS)))

    def touched(self, state: ConnectFourState, move: int) -> Touched:
        return Touched(to=(_square(move, len(state.columns[move])),))

    def rows(self, state: ConnectFourState) -> list[str]:
        """The board as text, top row first: 'X', 'O' or '.' per square."""
        return [
            "".join(state.disc(c, r) or "." for c in range(len(COLUMNS)))
            for r in reversed(range(ROWS))
        ]

    def render_text(self, state: ConnectFourState) -> str:
        mover = f"{state.to_move} ({_MARK[state.to_move]}) to move, ply {state.ply}"
        return f"{self.render_final(state)}\n{mover}"

    def render_final(self, state: ConnectFourState) -> str:
        lines = [
            f"{r} " + " ".join(row)
            for r, row in zip(range(ROWS, 0, -1), self.rows(state), strict=True)
        ]
        lines.append("  " + " ".join(COLUMNS))
        return "\n".join(lines)

    def state_json(self, state: ConnectFourState) -> Mapping[str, Any]:
        names = {"X": "blue", "O": "orange"}
        return {
            "to_move": str(state.to_move),
            "ply": state.ply,
            "columns": len(COLUMNS),
            "rows": ROWS,
            # square id -> the side whose disc stands there (empty squares left out)
            "discs": {
                _square(c, r): names[mark]
                for c, stack in enumerate(state.columns)
                for r, mark in enumerate(stack)
            },
            "text": self.rows(state),
        }


GAME = ConnectFour()
