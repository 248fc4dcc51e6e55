"""Alak for the search: stones on the board and capture threats.

The search runs on the rule module's states; `protocols.alak.rules.place` (the rules' own placement
on bit masks) tells what each placement would capture. The side to move cashes its best capture
next, so that counts almost in full; the opponent's best capture counts for less, since the side to
move may still prevent it. In the traditional variant the score (territory + stones + captures)
stands in for the stone count, and `pass` is searched last among the quiet moves.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocols.alak.rules import (
    BALJEU,
    TRADITIONAL,
    AlakState,
    Move,
    TraditionalState,
    place,
    traditional_score,
)
from protocols.base import Side
from protocols.search import RulesModel

STONE = 100
OWN_THREAT = 80  # per stone the side to move can capture with its best placement
ENEMY_THREAT = 40  # per stone the opponent could capture with its best placement


def _best_capture(state: AlakState | TraditionalState, own: int, enemy: int, banned: int) -> int:
    """The most stones `own` can capture with one placement."""
    rules = state.rules
    free = rules.full & ~(own | enemy | banned)
    best = 0
    while free:
        low = free & -free
        free ^= low
        captured = place(rules, own, enemy, low.bit_length() - 1)[2].bit_count()
        best = max(best, captured)
    return best


def evaluate(pos: AlakState | TraditionalState) -> int:
    """The score for the side to move."""
    own, enemy = (pos.blue, pos.orange) if pos.to_move is Side.BLUE else (pos.orange, pos.blue)
    if isinstance(pos, TraditionalState):
        blue, orange = traditional_score(pos)
        score = STONE * (blue - orange if pos.to_move is Side.BLUE else orange - blue)
    else:
        score = STONE * (own.bit_count() - enemy.bit_count())
    score += OWN_THREAT * _best_capture(pos, own, enemy, pos.banned)
    score -= ENEMY_THREAT * _best_capture(pos, enemy, own, 0)
    return score


class AlakModel(RulesModel):
    """Placements that capture are the noisy moves, the biggest capture first."""

    def __init__(self) -> None:
        super().__init__(BALJEU)
        self.traditional = False

    def root(self, state: AlakState | TraditionalState) -> AlakState | TraditionalState:
        # The rules are chosen once per search: Baljeu's path has no variant test in it.
        self.traditional = isinstance(state, TraditionalState)
        self.game = TRADITIONAL if self.traditional else BALJEU
        return state

    def moves(self, pos: AlakState | TraditionalState) -> tuple[Sequence[Move], int]:
        moves = self.game.legal_moves(pos)
        rules = pos.rules
        own, enemy = (pos.blue, pos.orange) if pos.to_move is Side.BLUE else (pos.orange, pos.blue)
        if self.traditional and moves:  # `pass` (always last) captures nothing
            gains = [place(rules, own, enemy, m.point)[2].bit_count() for m in moves[:-1]]
            gains.append(0)
        else:
            gains = [place(rules, own, enemy, m.point)[2].bit_count() for m in moves]
        if not any(gains):
            return moves, 0
        ranked = sorted(zip(gains, range(len(moves)), strict=True), key=lambda g: -g[0])
        ordered = [moves[i] for _, i in ranked]
        return ordered, sum(1 for g in gains if g)

    def evaluate(self, pos: AlakState | TraditionalState) -> int:
        return evaluate(pos)

    def key(self, pos: AlakState | TraditionalState) -> int:
        return pos.key


def model() -> AlakModel:
    """The search bots' model of the game (protocols.parts): a fresh one for each bot."""
    return AlakModel()
