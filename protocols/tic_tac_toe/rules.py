"""Tic-tac-toe: the rules and the wire format, with the course referee's conventions, so that
bots written for the course play unchanged (`referee tictactoe -p1 ... -p2 ...`):

- framing: the referee's usual one: `blue` (X, moves first) or `orange` (O) on the first line,
  then one move per line each way; `END` when the game is over.
- a move is one square, column then row: `a1` (bottom left) .. `c3` (top right), columns `a`..`c`
  from the left, rows `1`..`3` from the bottom. As under the course referee, capitals are
  accepted (`B2` is `b2`); the canonical form sent to the opponent is lowercase.
- three marks in a row (across, up or diagonal) win; a full board without one is a draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from protocols.base import (
    BadSyntax,
    Game,
    IllegalMove,
    Outcome,
    Reason,
    Side,
    Touched,
    options_model_at,
    split_tokens,
)

if TYPE_CHECKING:
    from protocols.options import GameOptions
    from protocols.tic_tac_toe.options import TicTacToeOptions

COLUMNS = "abc"
ROWS = "123"
# Squares in the order of `cells`: a1 b1 c1 a2 b2 c2 a3 b3 c3.
SQUARES = tuple(f"{c}{r}" for r in ROWS for c in COLUMNS)
THREE = "three-in-a-row"
FULL = "board-full"
_MARK = {Side.BLUE: "X", Side.ORANGE: "O"}
_LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class TicTacToeState:
    """A position: `cells` is 'X', 'O' or '.' per square, in the order of `SQUARES`."""

    cells: str
    to_move: Side
    ply: int

    def winner(self) -> Side | None:
        for a, b, c in _LINES:
            mark = self.cells[a]
            if mark != "." and mark == self.cells[b] == self.cells[c]:
                return Side.BLUE if mark == "X" else Side.ORANGE
        return None


class TicTacToe(Game[TicTacToeState, int, "TicTacToeOptions"]):
    """Tic-tac-toe; a move is the index of its square in `SQUARES`."""

    name: ClassVar[str] = "tic-tac-toe"
    options_model: ClassVar[type[GameOptions]] = options_model_at(
        "protocols.tic_tac_toe.options", "TicTacToeOptions"
    )
    endings: ClassVar[Mapping[str, str]] = {
        THREE: "the player who moved last has three marks in a row and wins",
        FULL: "the board is full without three in a row: a draw",
    }

    def initial_state(self, options: TicTacToeOptions | None = None) -> TicTacToeState:
        return TicTacToeState("." * len(SQUARES), Side.BLUE, 0)

    def legal_moves(self, state: TicTacToeState) -> Sequence[int]:
        if state.winner() is not None:
            return ()
        return tuple(i for i, cell in enumerate(state.cells) if cell == ".")

    def apply(self, state: TicTacToeState, move: int) -> TicTacToeState:
        cells = state.cells[:move] + _MARK[state.to_move] + state.cells[move + 1 :]
        return TicTacToeState(cells, state.to_move.other, state.ply + 1)

    def outcome(self, state: TicTacToeState) -> Outcome | None:
        winner = state.winner()
        if winner is not None:
            return Outcome(winner, Reason.GAME_ENDING, f"{winner} made three in a row", THREE)
        if "." not in state.cells:
            return Outcome(None, Reason.GAME_ENDING, "no three in a row on a full board", FULL)
        return None

    def parse_move(self, state: TicTacToeState, line: str) -> int:
        tokens = split_tokens(line)
        if len(tokens) != 1:
            raise BadSyntax(f"expected one square such as b2, got {len(tokens)} tokens")
        token = tokens[0].lower()  # the course referee accepts capitals
        if token not in SQUARES:
            raise BadSyntax(
                f"{tokens[0]!r} is not a square: a column a..c then a row 1..3, such as b2"
            )
        if self.outcome(state) is not None:
            raise IllegalMove("the game is over")
        index = SQUARES.index(token)
        if state.cells[index] != ".":
            raise IllegalMove(f"{token}: the square is already taken")
        return index

    def format_move(self, move: int) -> str:
        return SQUARES[move]

    def squares(self, state: TicTacToeState) -> Sequence[str]:
        return SQUARES

    def touched(self, state: TicTacToeState, move: int) -> Touched:
        return Touched(to=(SQUARES[move],))

    def rows(self, state: TicTacToeState) -> list[str]:
        """The board as text, top row (3) first."""
        return [state.cells[3 * r : 3 * r + 3] for r in reversed(range(len(ROWS)))]

    def render_text(self, state: TicTacToeState) -> str:
        mover = f"{state.to_move} ({_MARK[state.to_move]}) to move, ply {state.ply}"
        return f"{self.render_final(state)}\n{mover}"

    def render_final(self, state: TicTacToeState) -> str:
        lines = [f"{r} " + " ".join(row) for r, row in zip("321", self.rows(state), strict=True)]
        lines.append("  " + " ".join(COLUMNS))
        return "\n".join(lines)

    def state_json(self, state: TicTacToeState) -> Mapping[str, Any]:
        names = {"X": "blue", "O": "orange", ".": None}
        return {
            "to_move": str(state.to_move),
            "ply": state.ply,
            # square id -> the side whose mark stands there, or null
            "cells": {
                square: names[cell] for square, cell in zip(SQUARES, state.cells, strict=True)
            },
            "text": self.rows(state),
        }


GAME = TicTacToe()
