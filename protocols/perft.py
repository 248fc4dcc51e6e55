"""Perft: count the leaves of the legal-move tree at an exact depth (a check of move generation)."""

from __future__ import annotations

from typing import Any

from protocols.base import Game


def perft(game: Game[Any, Any, Any], state: Any, depth: int) -> int:
    """Leaves at exactly `depth` plies below `state`; a finished game has no moves to count."""
    if depth == 0:
        return 1
    moves = game.legal_moves(state)
    if depth == 1:
        return len(moves)
    return sum(perft(game, game.apply(state, move), depth - 1) for move in moves)
