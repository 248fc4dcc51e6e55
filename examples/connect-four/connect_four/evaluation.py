"""The search bots' evaluation of a Connect Four position: `evaluate(state)`, found by its name
beside the rules (the package's `evaluation` module, docs/new-game.md).

Every line of four squares that only one side occupies is still open to that side: the more
discs it already holds there, the more it is worth. Scores are for the side to move, roughly
100 for an open three.
"""

from __future__ import annotations

from connect_four.rules import COLUMNS, ROWS, ConnectFourState

# What an open line is worth by the number of discs in it (0 to 3; four has ended the game).
_WORTH = (0, 2, 12, 100)
_WIDTH = len(COLUMNS)


def _lines() -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every line of four squares on the board, as (column, row) pairs."""
    lines = []
    for column in range(_WIDTH):
        for row in range(ROWS):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                end_c, end_r = column + 3 * dc, row + 3 * dr
                if 0 <= end_c < _WIDTH and 0 <= end_r < ROWS:
                    lines.append(tuple((column + i * dc, row + i * dr) for i in range(4)))
    return tuple(lines)


LINES = _lines()


def evaluate(state: ConnectFourState) -> int:
    """The score of `state` for the side to move."""
    own = "X" if state.to_move.value == "blue" else "O"
    score = 0
    for line in LINES:
        discs = [state.disc(c, r) for c, r in line]
        mine = discs.count(own)
        theirs = 4 - mine - discs.count(None)
        if mine and not theirs:
            score += _WORTH[mine]
        elif theirs and not mine:
            score -= _WORTH[theirs]
    return score
