"""The games and their wire formats: pure rules, no I/O.

The registry below is the one explicit list of games. Modules are imported on first use, so a
bot that plays one game loads only that game's rules.
"""

from __future__ import annotations

import importlib
from typing import Any

from protocols.base import Game

# Canonical name -> (module, aliases). The module exposes its game object as `GAME`.
_GAMES: dict[str, tuple[str, tuple[str, ...]]] = {
    "lasker-morris": ("protocols.lasker_morris", ("laskermorris",)),
    "lielow": ("protocols.lielow", ()),
    "legionnaires": ("protocols.legionnaires", ()),
    "l-game": ("protocols.l_game", ("lgame",)),
    "alak": ("protocols.alak", ()),
}
_ALIASES = {alias: name for name, (_, aliases) in _GAMES.items() for alias in aliases}


class UnknownGame(ValueError):
    """A game name that is not in the registry."""


def game_names() -> list[str]:
    """The canonical names of all games, in registry order."""
    return list(_GAMES)


def canonical_name(name: str) -> str:
    """Resolve an alias (e.g. `laskermorris`) to the canonical game name."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _GAMES:
        known = ", ".join(game_names())
        raise UnknownGame(f"unknown game {name!r}; known games: {known}")
    return key


def get_game(name: str) -> Game[Any, Any, Any]:
    """The game object for a canonical name or alias."""
    module = importlib.import_module(_GAMES[canonical_name(name)][0])
    game: Game[Any, Any, Any] = module.GAME
    return game
