"""The games and their wire formats: pure rules, no I/O.

The registry below is the one explicit list of games: each entry names the module that holds the
game and the other spellings the command line accepts. Modules are imported on first use, so a
bot that plays one game loads only that game's rules. Aliases live here, not on the game classes:
resolving a name must not import every game to read them. Nor does it import `protocols.base`
(pydantic): the command line resolves names and lists games before it loads any rules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from protocols.base import Game


class _Entry(NamedTuple):
    module: str  # exposes its game object as `GAME`
    aliases: tuple[str, ...] = ()


_GAMES: dict[str, _Entry] = {
    "lasker-morris": _Entry("protocols.lasker_morris", ("laskermorris",)),
    "lielow": _Entry("protocols.lielow"),
    "legionnaires": _Entry("protocols.legionnaires"),
    "l-game": _Entry("protocols.l_game", ("lgame",)),
    "alak": _Entry("protocols.alak"),
}
_ALIASES = {alias: name for name, entry in _GAMES.items() for alias in entry.aliases}


class UnknownGame(ValueError):
    """A game name that is not in the registry."""


def game_names() -> list[str]:
    """The canonical names of all games, in registry order."""
    return list(_GAMES)


def aliases(name: str) -> tuple[str, ...]:
    """The other spellings of a game (e.g. `laskermorris`), for a canonical name or an alias."""
    return _GAMES[canonical_name(name)].aliases


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
    module = importlib.import_module(_GAMES[canonical_name(name)].module)
    game: Game[Any, Any, Any] = module.GAME
    return game
