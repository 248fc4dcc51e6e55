"""The L game for the greedy bot and the search: room to move.

The perfect bot and the search bot play the L game from the solved table; this evaluation is
what a one-ply player sees: a player loses when his L has no new placement, so the number of
placements left to each side is the natural measure.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocols.l_game.rules import GAME, MASKS, LGameState, Move, fitting
from protocols.search import RulesModel

PLACEMENT = 10


def placements(pos: LGameState, mover: bool) -> int:
    """New placements open to the side to move (`mover`) or to its opponent (its own current
    placement always fits and does not count)."""
    other = pos.opponent if mover else pos.mover
    return len(fitting(MASKS[other] | pos.neutrals)) - 1


def evaluate(pos: LGameState) -> int:
    """The score for the side to move."""
    return PLACEMENT * (placements(pos, True) - placements(pos, False))


class LGameModel(RulesModel):
    """No move is noisy; history orders them."""

    def __init__(self) -> None:
        super().__init__(GAME)

    def moves(self, pos: LGameState) -> tuple[Sequence[Move], int]:
        return GAME.legal_moves(pos), 0

    def evaluate(self, pos: LGameState) -> int:
        return evaluate(pos)

    def key(self, pos: LGameState) -> int:
        return pos.history[-1]


def model() -> LGameModel:
    """The search bots' model of the game (protocols.parts): a fresh one for each bot."""
    return LGameModel()
