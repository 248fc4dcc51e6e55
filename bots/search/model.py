"""What the search engine needs from a game: a `Model` over positions seen by the side to move.

A model may search on the rule module's own states (`RulesModel` does, so the search sees every
rule, draw rules included, exactly as the referee does) or on a leaner representation of its
own, converting at the root and back for the chosen move.
"""

from __future__ import annotations

import abc
from collections.abc import Hashable, Sequence
from typing import Any, Generic, TypeVar

from protocols.base import Game

P = TypeVar("P")  # a position
M = TypeVar("M")  # a move


class Model(abc.ABC, Generic[P, M]):
    """A game as the search sees it. Scores are from the point of view of the side to move."""

    @abc.abstractmethod
    def root(self, state: Any) -> P:
        """The search position of a rule-module state."""

    @abc.abstractmethod
    def to_protocol(self, pos: P, move: M) -> Any:
        """The rule-module move of a search move played in `pos`."""

    @abc.abstractmethod
    def end(self, pos: P) -> int | None:
        """None while the game goes on; else 1 (the side to move has won), -1 (lost), 0 (draw)."""

    @abc.abstractmethod
    def moves(self, pos: P) -> tuple[Sequence[M], int]:
        """The legal moves with the noisy ones (captures, mills) first, and how many those are."""

    @abc.abstractmethod
    def play(self, pos: P, move: M) -> P:
        """The position after `move`."""

    @abc.abstractmethod
    def evaluate(self, pos: P) -> int:
        """A static score for the side to move (about 100 per unit of material)."""

    @abc.abstractmethod
    def key(self, pos: P) -> Hashable:
        """The transposition-table key: equal for positions the search may treat as one."""


class RulesModel(Model[Any, Any]):
    """A model that searches on the rule module's states and moves directly."""

    def __init__(self, game: Game[Any, Any, Any]) -> None:
        self.game = game

    def root(self, state: Any) -> Any:
        return state

    def to_protocol(self, pos: Any, move: Any) -> Any:
        return move

    def end(self, pos: Any) -> int | None:
        outcome = self.game.outcome(pos)
        if outcome is None:
            return None
        if outcome.winner is None:
            return 0
        return 1 if outcome.winner is pos.to_move else -1

    def play(self, pos: Any, move: Any) -> Any:
        return self.game.apply(pos, move)
