"""Per-game search models: move order and static evaluation, one module per game.

A game installed as a plug-in (docs/new-game.md) gets `GenericModel`: its own evaluation when
its package declares one in the entry-point group `referee.evaluations` (the entry point's name
is the game's, its value a function from a state to a score for the side to move), else a score
of 0, which still lets the search find forced wins and avoid forced losses.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Sequence
from importlib import metadata
from typing import Any

from bots.search.model import Model, RulesModel
from protocols import get_game
from protocols.base import Game

EVALUATIONS_GROUP = "referee.evaluations"
Evaluation = Callable[[Any], int]


class GenericModel(RulesModel):
    """Any game, searched on its rule module's states with its moves in their given order."""

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


def plugin_evaluation(game_name: str) -> Evaluation | None:
    """The evaluation a plug-in declares for `game_name`, or None if it declares none."""
    for point in metadata.entry_points(group=EVALUATIONS_GROUP, name=game_name):
        dist = point.dist.name if point.dist is not None else "an unknown distribution"
        try:
            loaded = point.load()
        except Exception as exc:  # a plug-in's broken import is reported, not a traceback
            raise ValueError(
                f"the evaluation of {game_name!r} cannot be loaded: entry point "
                f"{point.name} = {point.value!r} in group {EVALUATIONS_GROUP!r} of {dist}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        if not callable(loaded):
            raise ValueError(
                f"the evaluation of {game_name!r} (entry point {point.name} = "
                f"{point.value!r} of {dist}) is a {type(loaded).__name__}, not a function"
            )
        evaluation: Evaluation = loaded
        return evaluation
    return None


def model_for(game_name: str) -> Model[Any, Any]:
    """The search model of a game (canonical name); modules load on first use."""
    if game_name == "lasker-morris":
        from bots.evaluation.lasker_morris import LaskerMorrisModel

        return LaskerMorrisModel()
    if game_name == "lielow":
        from bots.evaluation.lielow import LielowModel

        return LielowModel()
    if game_name == "legionnaires":
        from bots.evaluation.legionnaires import LegionnairesModel

        return LegionnairesModel()
    if game_name == "alak":
        from bots.evaluation.alak import AlakModel

        return AlakModel()
    if game_name == "l-game":
        from bots.evaluation.l_game import LGameModel

        return LGameModel()
    return GenericModel(get_game(game_name), plugin_evaluation(game_name))
