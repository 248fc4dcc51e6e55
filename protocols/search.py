"""What the search bots need from a game: a `Model` over positions seen by the side to move.

A game's `evaluation` module (protocols.parts) provides one: `model()` returning a `Model`, or
just `evaluate(state) -> int`, which `GenericModel` searches with. A model may search on the
rule module's own states (`RulesModel` does, so the search sees every rule, draw rules included,
exactly as the referee does) or on a leaner representation of its own, converting at the root
and back for the chosen move. Pure: the search itself is the bots' (bots/search/engine.py).
"""

from __future__ import annotations

import abc
import json
from collections.abc import Callable, Hashable, Sequence
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


# A static score of a rule-module state for the side to move (about 100 per unit of material).
Evaluation = Callable[[Any], int]


class GenericModel(RulesModel):
    """Any game, searched on its rule module's states with its moves in their given order, and
    scored by `evaluation` (without one every position scores 0, which still lets the search
    find forced wins and avoid forced losses)."""

    def __init__(self, game: Game[Any, Any, Any], evaluation: Evaluation | None = None) -> None:
        super().__init__(game)
        self.evaluation = evaluation

    def moves(self, pos: Any) -> tuple[Sequence[Any], int]:
        return tuple(self.game.legal_moves(pos)), 0

    def evaluate(self, pos: Any) -> int:
        return self.evaluation(pos) if self.evaluation is not None else 0

    def key(self, pos: Any) -> Hashable:
        # Hashable states (frozen dataclasses, named tuples) are their own keys; any other
        # state is keyed by its JSON view, slower but the same for the same position.
        try:
            hash(pos)
        except TypeError:
            return json.dumps(self.game.state_json(pos), sort_keys=True)
        key: Hashable = pos
        return key
