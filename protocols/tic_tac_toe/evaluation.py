"""Tic-tac-toe for the search: no static score. The whole game is nine plies, so the search
reads it to the end within its first iterations; positions it stops short of score 0."""

from __future__ import annotations

from protocols.search import GenericModel
from protocols.tic_tac_toe.rules import GAME


def model() -> GenericModel:
    """The search bots' model of the game (protocols.parts): a fresh one for each bot."""
    return GenericModel(GAME)
