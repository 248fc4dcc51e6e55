"""Legionnaires for the search: mobility difference and blocked pawns.

Every move captures one pawn, so the pawn count is fixed by the number of plies played and says
nothing; what decides the game is who runs out of moves first. The evaluation counts each side's
moves (captures it could make were it to move) and its pawns that have none.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocols.base import Side
from protocols.legionnaires.rules import GAME, LegionnairesState, Move, capture_map
from protocols.search import RulesModel

MOBILITY = 10
BLOCKED = 10  # each pawn that has none


def _mobility(state: LegionnairesState, own: int, enemy: int) -> tuple[int, int]:
    """(number of moves, number of pawns that can move) for the side owning `own`."""
    found = capture_map(state.board, own, enemy)
    return sum(targets.bit_count() for _, targets in found), len(found)


def evaluate(pos: LegionnairesState) -> int:
    """The score for the side to move."""
    own, enemy = (pos.blue, pos.orange) if pos.to_move is Side.BLUE else (pos.orange, pos.blue)
    my_moves, my_active = _mobility(pos, own, enemy)
    their_moves, their_active = _mobility(pos, enemy, own)
    my_blocked = own.bit_count() - my_active
    their_blocked = enemy.bit_count() - their_active
    return MOBILITY * (my_moves - their_moves) - BLOCKED * (my_blocked - their_blocked)


class LegionnairesModel(RulesModel):
    """Every move is a capture, so no move is singled out as noisy: history orders them."""

    def __init__(self) -> None:
        super().__init__(GAME)

    def moves(self, pos: LegionnairesState) -> tuple[Sequence[Move], int]:
        return GAME.legal_moves(pos), 0

    def evaluate(self, pos: LegionnairesState) -> int:
        return evaluate(pos)

    def key(self, pos: LegionnairesState) -> int:
        size = pos.board.width * pos.board.height
        return pos.blue | pos.orange << size | (pos.to_move is Side.ORANGE) << 2 * size


def model() -> LegionnairesModel:
    """The search bots' model of the game (protocols.parts): a fresh one for each bot."""
    return LegionnairesModel()
