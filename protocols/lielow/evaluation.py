"""Lielow for the search: material, king safety and attacks on the enemy king, mobility.

The search runs on the rule module's states. A stack of height h on square s reaches the same
landing squares every time, so a table gives them as one bitmask per (s, h); from those the
evaluation builds each side's attack map in one pass over the board.

What matters most is the king: a king that the side to move can land on is lost at once (the
evaluation scores that as nearly won), a king under attack when its owner is to move must run or
be defended, and a king with safe squares to run to is worth more than a boxed-in one.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocols.base import Side
from protocols.lielow.rules import DIRECTIONS, GAME, MAX_HEIGHT, OFF, SIZE, LielowState, Move
from protocols.search import RulesModel

SQUARES = SIZE * SIZE


def _landing_masks() -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """By square * 9 + height: the bitmask of on-board landing squares, and whether it can leave."""
    masks = [0] * (SQUARES * (MAX_HEIGHT + 1))
    leaves = [False] * len(masks)
    for square in range(SQUARES):
        file, rank = square % SIZE, square // SIZE
        for height in range(1, MAX_HEIGHT + 1):
            for df, dr in DIRECTIONS:
                f, r = file + df * height, rank + dr * height
                if 0 <= f < SIZE and 0 <= r < SIZE:
                    masks[square * 9 + height] |= 1 << (r * SIZE + f)
                else:
                    leaves[square * 9 + height] = True
    return tuple(masks), tuple(leaves)


LANDINGS, LEAVES = _landing_masks()

STACK = 100
HEIGHT = 4  # a little for height: tall stacks hold the crown and reach far
MOBILITY = 2
KING_ESCAPE = 8  # each safe square the king can move to
KING_ATTACKED = 120  # the owner to move must deal with each attacker
CAN_CAPTURE = 50  # the side to move can take a stack
HANGING = 20  # each of the side to move's stacks the opponent attacks
KING_CAPTURE = 50_000  # the side to move can take the enemy king: the game is as good as won


def _side(stacks: list[tuple[int, int]]) -> tuple[int, int, int, int]:
    """(occupied squares, attacked squares, mobility, total height) of one side's stacks."""
    occupied = 0
    for square, _ in stacks:
        occupied |= 1 << square
    attacks = mobility = heights = 0
    for square, height in stacks:
        key = square * 9 + height
        landing = LANDINGS[key]
        attacks |= landing
        mobility += (landing & ~occupied).bit_count() + LEAVES[key]
        heights += height
    return occupied, attacks, mobility, heights


def _attackers(stacks: list[tuple[int, int]], square: int) -> int:
    return sum(LANDINGS[s * 9 + h] >> square & 1 for s, h in stacks)


def evaluate(pos: LielowState) -> int:
    """The score for the side to move."""
    board = pos.board
    if pos.to_move is Side.BLUE:
        mine = [(s, v) for s, v in enumerate(board) if v > 0]
        theirs = [(s, -v) for s, v in enumerate(board) if v < 0]
        my_king, their_king = pos.kings
    else:
        mine = [(s, -v) for s, v in enumerate(board) if v < 0]
        theirs = [(s, v) for s, v in enumerate(board) if v > 0]
        their_king, my_king = pos.kings
    my_occupied, my_attacks, my_mobility, my_heights = _side(mine)
    if their_king >= 0 and my_attacks >> their_king & 1:
        return KING_CAPTURE
    their_occupied, their_attacks, their_mobility, their_heights = _side(theirs)
    score = STACK * (len(mine) - len(theirs)) + HEIGHT * (my_heights - their_heights)
    score += MOBILITY * (my_mobility - their_mobility)
    king_bit = 0
    if my_king >= 0:
        king_bit = 1 << my_king
        safe = LANDINGS[my_king * 9 + abs(board[my_king])] & ~my_occupied & ~their_attacks
        score += KING_ESCAPE * safe.bit_count()
        if their_attacks & king_bit:
            score -= KING_ATTACKED * _attackers(theirs, my_king)
    if their_king >= 0:
        safe = LANDINGS[their_king * 9 + abs(board[their_king])] & ~their_occupied & ~my_attacks
        score -= KING_ESCAPE * safe.bit_count()
    if my_attacks & their_occupied:
        score += CAN_CAPTURE
    score -= HANGING * (their_attacks & my_occupied & ~king_bit).bit_count()
    return score


class LielowModel(RulesModel):
    """Captures are the noisy moves: a capture of the king first, then taller victims first."""

    def __init__(self) -> None:
        super().__init__(GAME)

    def moves(self, pos: LielowState) -> tuple[Sequence[Move], int]:
        moves = GAME.legal_moves(pos)
        board = pos.board
        captures = [m for m in moves if m.dst != OFF and board[m.dst]]
        if not captures:
            return moves, 0
        enemy_king = pos.kings[1] if pos.to_move is Side.BLUE else pos.kings[0]
        captures.sort(key=lambda m: (m.dst == enemy_king, abs(board[m.dst])), reverse=True)
        quiet = [m for m in moves if m.dst == OFF or not board[m.dst]]
        return captures + quiet, len(captures)

    def evaluate(self, pos: LielowState) -> int:
        return evaluate(pos)

    def key(self, pos: LielowState) -> int:
        # The 64-bit hash, not the tuple: a table entry then keeps no board alive (a 64-tuple is
        # half a kilobyte), and with a few hundred thousand entries a collision is a one in a
        # hundred million chance.
        return hash((pos.board, pos.kings, pos.to_move is Side.BLUE))


def model() -> LielowModel:
    """The search bots' model of the game (protocols.parts): a fresh one for each bot."""
    return LielowModel()
