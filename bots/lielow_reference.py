"""The Lielow reference bot: the game author's published computer player, from its description.

A depth-3 negamax with alpha-beta pruning (`--depth` changes the depth), whose evaluation is
the number of legal moves of the side to move minus the opponent's, with captures searched
before the other moves. A win scores above any evaluation, a loss below. Among root moves of
equal score the seed picks one, so games between deterministic opponents still vary.

It is the yardstick for the search bot at equal depth: `python -m bots search --depth 3` should
score at least 90% against it (docs/strength.md).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from bots.clock import MoveClock
from bots.config import BotConfig
from bots.player import Chooser
from protocols.base import Game
from protocols.lielow.rules import GAME, OFF, LielowState, Move

DEFAULT_DEPTH = 3
WIN = 1_000_000


def mobility(state: LielowState) -> int:
    """The side to move's legal moves minus the opponent's."""
    other = dataclasses.replace(state, to_move=state.to_move.other)
    return len(GAME.legal_moves(state)) - len(GAME.legal_moves(other))


def captures_first(state: LielowState) -> list[Move]:
    moves = GAME.legal_moves(state)
    board = state.board
    captures = [m for m in moves if m.dst != OFF and board[m.dst]]
    return captures + [m for m in moves if m.dst == OFF or not board[m.dst]]


def negamax(state: LielowState, depth: int, alpha: int, beta: int) -> int:
    outcome = GAME.outcome(state)
    if outcome is not None:
        if outcome.winner is None:
            return 0
        return WIN + depth if outcome.winner is state.to_move else -WIN - depth
    if depth == 0:
        return mobility(state)
    best = -2 * WIN
    for move in captures_first(state):
        score = -negamax(GAME.apply(state, move), depth - 1, -beta, -alpha)
        if score > best:
            best = score
            alpha = max(alpha, score)
            if alpha >= beta:
                break
    return best


class LielowReference:
    """The chooser: every root move searched to the full depth, ties broken by the seed."""

    def __init__(self, depth: int, seed: int | None) -> None:
        self.depth = depth
        self.rng = random.Random(seed)

    def __call__(self, state: LielowState, clock: MoveClock) -> Move:
        best_score, best = -3 * WIN, list[Move]()
        for move in captures_first(state):
            # A window from just below the best keeps a score equal to it exact (a real tie).
            score = -negamax(GAME.apply(state, move), self.depth - 1, -3 * WIN, 1 - best_score)
            if score > best_score:
                best_score, best = score, [move]
            elif score == best_score:
                best.append(move)
        return self.rng.choice(best)


def lielow_reference_chooser(game: Game[Any, Any, Any], config: BotConfig) -> Chooser:
    if game.name != "lielow":
        raise ValueError(f"the Lielow reference bot plays only Lielow, not {game.name}")
    return LielowReference(config.depth or DEFAULT_DEPTH, config.seed)
