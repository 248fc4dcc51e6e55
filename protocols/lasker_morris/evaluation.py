"""Lasker Morris for the search: material, mill threats, potential mills, mobility, blocked stones.

The search runs on the rule module's own states (so the 20-ply draw, repetition and flying are
exactly the referee's); this module adds the move order and the evaluation. Beyond the Game
interface it uses only the documented tables (`POINTS`, `ADJACENT`, `MILLS`), `NO_REMOVAL` and
the state's fields.

The draw after 20 plies without a removal dominates the game: a material lead is worth nothing
when the count runs out before the next mill, so everything but an immediate mill threat fades
as the count nears its limit.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocols.base import Side
from protocols.lasker_morris.rules import ADJACENT, GAME, MILLS, NO_REMOVAL, POINTS, Move
from protocols.lasker_morris.rules import LaskerMorrisState as State
from protocols.search import RulesModel

_BIT = {p: 1 << i for i, p in enumerate(POINTS)}
_FULL = (1 << len(POINTS)) - 1
_NEIGHBOURS: tuple[int, ...] = tuple(sum(_BIT[q] for q in ADJACENT[p]) for p in POINTS)
_MILL_MASKS: tuple[int, ...] = tuple(_BIT[a] | _BIT[b] | _BIT[c] for a, b, c in MILLS)
# (mill mask, point index) for each of the mill's three points: "the other two plus this one".
_MILL_POINTS: tuple[tuple[int, int, int], ...] = tuple(
    (mask, mask & ~_BIT[p], POINTS.index(p))
    for mask, mill in zip(_MILL_MASKS, MILLS, strict=True)
    for p in mill
)

STONE = 100
MILL_NOW = 70  # the side to move can close a mill: almost a stone
DOUBLE_THREAT = 60  # the opponent threatens two mills: one will close
SINGLE_THREAT = 12
OPEN_TWO = 10  # two in a line with the third point empty
STANDING_MILL = 6
MOBILITY = 3
BLOCKED = 4
FADE_PLIES = 8  # over the last plies before the no-removal draw, the evaluation fades to 0


def _closable(own: int, empty: int, can_jump: bool) -> int:
    """Empty points where the side would complete a mill with its next move."""
    targets = 0
    for _mill, two, point in _MILL_POINTS:
        if own & two == two and empty >> point & 1:
            if can_jump:
                targets |= 1 << point
                continue
            # A board stone next to the point, not one of the two, must step in.
            if _NEIGHBOURS[point] & own & ~two:
                targets |= 1 << point
    return targets


def _side_terms(own: int, enemy: int, empty: int) -> int:
    """Open twos, standing mills, mobility and blocked stones of one side."""
    score = 0
    for mill in _MILL_MASKS:
        mine = own & mill
        if mine == mill:
            score += STANDING_MILL
        elif not enemy & mill and mine.bit_count() == 2:
            score += OPEN_TWO
    mobility = 0
    blocked = 0
    stones = own
    while stones:
        low = stones & -stones
        stones ^= low
        free = (_NEIGHBOURS[low.bit_length() - 1] & empty).bit_count()
        mobility += free
        blocked += not free
    return score + MOBILITY * mobility - BLOCKED * blocked


def evaluate(state: State) -> int:
    """The score for the side to move."""
    own, enemy = state.blue, state.orange
    own_hand, enemy_hand = state.blue_hand, state.orange_hand
    if state.to_move is Side.ORANGE:
        own, enemy, own_hand, enemy_hand = enemy, own, enemy_hand, own_hand
    empty = _FULL & ~(own | enemy)
    own_left, enemy_left = own.bit_count() + own_hand, enemy.bit_count() + enemy_hand
    slow = STONE * (own_left - enemy_left)
    slow += _side_terms(own, enemy, empty) - _side_terms(enemy, own, empty)
    threats = _closable(enemy, empty, bool(enemy_hand) or enemy_left <= 3).bit_count()
    if threats >= 2:
        slow -= DOUBLE_THREAT
    elif threats:
        slow -= SINGLE_THREAT
    limit = state.no_capture_limit
    if limit:
        remaining = limit - state.plies_without_removal
        slow = slow * min(remaining, FADE_PLIES) // FADE_PLIES
    if _closable(own, empty, bool(own_hand) or own_left <= 3):
        slow += MILL_NOW
    return slow


class LaskerMorrisModel(RulesModel):
    """Mill moves (with their removals) are the noisy moves, tried first."""

    def __init__(self) -> None:
        super().__init__(GAME)

    def moves(self, pos: State) -> tuple[Sequence[Move], int]:
        moves = GAME.legal_moves(pos)
        mills = [m for m in moves if m.remove != NO_REMOVAL]
        if not mills:
            return moves, 0
        quiet = [m for m in moves if m.remove == NO_REMOVAL]
        return mills + quiet, len(mills)

    def evaluate(self, pos: State) -> int:
        return evaluate(pos)

    def key(self, pos: State) -> int:
        side = 0 if pos.to_move is Side.BLUE else 1
        return (
            pos.blue
            | pos.orange << 24
            | pos.blue_hand << 48
            | pos.orange_hand << 53
            | side << 58
            | pos.plies_without_removal << 59
        )


def model() -> LaskerMorrisModel:
    """The search bots' model of the game (protocols.parts): a fresh one for each bot."""
    return LaskerMorrisModel()
