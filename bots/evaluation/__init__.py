"""Per-game search models: move order and static evaluation, one module per game."""

from __future__ import annotations

from typing import Any

from bots.search.model import Model


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
    raise ValueError(f"no search model for {game_name!r}")
