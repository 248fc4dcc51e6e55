"""The search model of a game, as the search and greedy bots play it.

Every game, built-in or plug-in, brings its own in its package's `evaluation` module
(protocols.parts): `model()` returning a `protocols.search.Model` (move order, evaluation,
transposition keys: the built-in games' form), or `evaluate(state) -> int`, searched on the
game's own states by `GenericModel`. A plug-in published before that convention may declare the
function in the entry-point group `referee.evaluations` instead (the entry point's name is the
game's). A game with neither is searched with a score of 0, which still lets the search find
forced wins and avoid forced losses.
"""

from __future__ import annotations

from importlib import metadata
from types import ModuleType
from typing import Any

from protocols import get_game, parts
from protocols.search import Evaluation, GenericModel, Model

EVALUATIONS_GROUP = "referee.evaluations"


def plugin_evaluation(game_name: str) -> Evaluation | None:
    """The evaluation a plug-in declares for `game_name` in `referee.evaluations`, or None."""
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


def _model_of(game_name: str, module: ModuleType) -> Model[Any, Any]:
    """The model an `evaluation` module provides: its `model()`, or its `evaluate` searched by
    `GenericModel`."""
    make = getattr(module, "model", None)
    if callable(make):
        model = make()
        if not isinstance(model, Model):
            raise ValueError(
                f"{module.__name__}.model() of game {game_name!r} returned a "
                f"{type(model).__name__}, not a protocols.search.Model"
            )
        return model
    evaluate = getattr(module, "evaluate", None)
    if not callable(evaluate):
        raise ValueError(
            f"{module.__name__} of game {game_name!r} has neither model() nor evaluate(state)"
        )
    return GenericModel(get_game(game_name), evaluate)


def model_for(game_name: str) -> Model[Any, Any]:
    """A fresh search model of a game (its name or an alias); modules load on first use.
    Raises ValueError, naming the game and the part, when its evaluation cannot be loaded."""
    try:
        module = parts.module(game_name, parts.EVALUATION)
    except parts.PartNotLoadable as exc:
        raise ValueError(str(exc)) from exc
    if module is not None:
        return _model_of(game_name, module)
    game = get_game(game_name)
    return GenericModel(game, plugin_evaluation(game.name))
