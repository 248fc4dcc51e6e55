"""The game registry: every game, the referee's own included, is declared by an entry point.

- group `referee.games`: one entry point per game; its name is the game's canonical name and
  its value the object that implements `protocols.base.Game`, e.g.
  `connect-four = "connect_four.rules:GAME"`.
- group `referee.game_aliases` (optional): one entry point per other spelling the command line
  accepts; its name is the alias and its value the very same object reference as the game's
  entry in `referee.games`, e.g. `laskermorris = "protocols.lasker_morris.rules:GAME"`.

The referee's own games are declared that way in its pyproject.toml, and each is one folder of this
package (`protocols/<game>/`, the same shape as a plug-in's package) whose light `__init__.py`
repeats the game's `NAME` and `ALIASES`. The registry reads those folders rather than the installed
metadata for them: resolving and loading a built-in game (`referee play lasker-morris`) scans no
installed distribution (15 ms with 67 installed, against 0.6 ms for the folders), and a source tree
that is not installed still has its games. A test keeps the folders and the entry points equal.

Resolving a name reads no rules: an alias finds its game by comparing object references, so no
game module is imported until `get_game` asks for that one game, and neither is `protocols.base`
(pydantic): the command line resolves names and lists games before it loads any rules. A game
that cannot be loaded (its module is missing or fails to import, or the object is not a `Game`)
raises `GameNotLoadable`, naming the distribution and the entry point. A game's other parts (its
search evaluation, its boards, its rules page) are found next to its rules (`protocols.parts`).
"""

from __future__ import annotations

import functools
import importlib
import os
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from importlib import metadata

    from protocols.base import Game

GAMES_GROUP = "referee.games"
ALIASES_GROUP = "referee.game_aliases"
# The distribution that ships the built-in games, and the package whose folders they are.
BUILTIN_DISTRIBUTION = "referee"
BUILTIN_PACKAGE = __name__.rpartition(".")[0]
_FOLDER = os.path.dirname(__file__)
RULES_MODULE = "rules"  # the module of a built-in game's folder that holds its `GAME`


class GameEntry(NamedTuple):
    """One installed game, as its entry point declares it (no rules imported)."""

    name: str  # the canonical name: the entry point's name
    value: str  # `module:attribute`, the object implementing `Game`
    aliases: tuple[str, ...]
    distribution: str  # the distribution that declares it, e.g. `referee-connect-four`
    version: str  # the distribution's; empty for a built-in game, read from its folder

    @property
    def builtin(self) -> bool:
        return self.distribution == BUILTIN_DISTRIBUTION

    @property
    def source(self) -> str:
        """Where the game comes from, as people read it."""
        return "built-in" if self.builtin else f"{self.distribution} {self.version}"

    @property
    def declaration(self) -> str:
        """The entry point as it is declared, for error messages."""
        where = f"distribution {self.distribution} {self.version or '(built-in)'}"
        return f"{self.name} = {self.value!r} (group {GAMES_GROUP!r}, {where})"


class UnknownGame(ValueError):
    """A game name that is not in the registry."""


class GameNotLoadable(UnknownGame):
    """A game that is installed but whose object cannot be loaded."""


def _key(name: str) -> str:
    return name.strip().lower()


@functools.cache
def builtin_entries() -> tuple[GameEntry, ...]:
    """The referee's own games, by name: one per folder of this package that holds a rules
    module, named by the folder's `__init__.py` (`NAME`, `ALIASES`), which imports nothing."""
    with os.scandir(_FOLDER) as children:
        folders = sorted(
            child.name
            for child in children
            if child.is_dir() and os.path.isfile(os.path.join(child.path, f"{RULES_MODULE}.py"))
        )
    found = []
    for folder in folders:
        package = importlib.import_module(f"{BUILTIN_PACKAGE}.{folder}")
        value = f"{package.__name__}.{RULES_MODULE}:GAME"
        aliases = tuple(_key(a) for a in package.ALIASES)
        found.append(GameEntry(_key(package.NAME), value, aliases, BUILTIN_DISTRIBUTION, ""))
    return tuple(sorted(found, key=lambda e: e.name))


@functools.cache
def _builtin_spellings() -> dict[str, GameEntry]:
    """Every spelling of a built-in game -> its entry: what a built-in game is resolved with."""
    return {spelling: e for e in builtin_entries() for spelling in (e.name, *e.aliases)}


def _distribution_of(entry_point: metadata.EntryPoint) -> tuple[str, str]:
    dist = entry_point.dist
    if dist is None:
        return "an unknown distribution", "?"
    return dist.name, dist.version


def _plugin_entries() -> list[GameEntry]:
    """The games other distributions declare, by distribution then name (one metadata scan)."""
    from importlib import metadata  # only here: a built-in game is found without it

    installed = metadata.entry_points()
    alias_points = [(_key(a.name), a.value.strip()) for a in installed.select(group=ALIASES_GROUP)]
    declared = []
    for ep in installed.select(group=GAMES_GROUP):
        name, value = _key(ep.name), ep.value.strip()
        spellings = tuple(a for a, target in alias_points if target == value and a != name)
        found = GameEntry(name, value, spellings, *_distribution_of(ep))
        if not found.builtin:  # the referee's own are read from their folders
            declared.append(found)
    return sorted(declared, key=lambda e: (e.distribution.lower(), e.name))


@functools.cache
def _registry() -> tuple[dict[str, GameEntry], dict[str, str]]:
    """Canonical name -> entry, and alias -> canonical name, read once per process.

    The built-in games come first; then other distributions by name. A name declared twice
    (two distributions, or a game named like an earlier game's alias) keeps its first meaning.
    """
    games: dict[str, GameEntry] = {}
    taken: set[str] = set()  # names and aliases of the games kept so far
    for found in [*builtin_entries(), *_plugin_entries()]:
        if found.name not in taken:
            games[found.name] = found
            taken |= {found.name, *found.aliases}
    alias_table: dict[str, str] = {}
    for name, found in games.items():
        for alias in found.aliases:
            if alias not in games:
                alias_table.setdefault(alias, name)
    return games, alias_table


@functools.cache
def game_packages() -> tuple[str, ...]:
    """The top-level package of every installed game, built-in or plug-in, read from the entry
    points alone: unlike the registry it parses no distribution's metadata for names and
    versions (about 10 ms), which a sandbox that only needs the packages has no use for."""
    from importlib import metadata

    points = metadata.entry_points(group=GAMES_GROUP)
    values = [e.value for e in builtin_entries()] + [ep.value for ep in points]
    return tuple(dict.fromkeys(v.split(":")[0].split(".")[0].strip() for v in values))


def entries() -> list[GameEntry]:
    """Every installed game, built-ins first."""
    return list(_registry()[0].values())


def game_names() -> list[str]:
    """The canonical names of all games, in registry order."""
    return list(_registry()[0])


def builtin_names() -> list[str]:
    """The canonical names of the referee's own games, without reading installed metadata."""
    return [e.name for e in builtin_entries()]


def entry(name: str) -> GameEntry:
    """The registry entry of a canonical name or alias."""
    builtin = _builtin_spellings().get(_key(name))
    return builtin if builtin is not None else _registry()[0][canonical_name(name)]


def aliases(name: str) -> tuple[str, ...]:
    """The other spellings of a game (e.g. `laskermorris`), for a canonical name or an alias."""
    return entry(name).aliases


def _game_help() -> str:
    """The help line of a command's game argument: the built-in games, with no scan of the
    installed metadata for plug-ins (about 25 ms at every `referee play`)."""
    spelled = (e.name + "".join(f" or {alias}" for alias in e.aliases) for e in builtin_entries())
    return (
        f"a built-in game ({', '.join(spelled)}) or a plug-in's: "
        "`referee games` lists every game installed"
    )


GAME_HELP = _game_help()


def canonical_name(name: str) -> str:
    """Resolve an alias (e.g. `laskermorris`) to the canonical game name."""
    if (builtin := _builtin_spellings().get(_key(name))) is not None:
        return builtin.name
    games, alias_table = _registry()
    key = _key(name)
    key = alias_table.get(key, key)
    if key not in games:
        known = ", ".join(games) or "none (is the referee installed? `pip install -e .`)"
        raise UnknownGame(f"unknown game {name!r}; known games: {known}")
    return key


def get_game(name: str) -> Game[Any, Any, Any]:
    """The game object for a canonical name or alias, imported on first use."""
    found = entry(name)
    if found.builtin:
        module, _, attribute = found.value.partition(":")
        builtin: Game[Any, Any, Any] = getattr(importlib.import_module(module), attribute)
        return builtin
    from importlib import metadata

    try:
        loaded = metadata.EntryPoint(found.name, found.value, GAMES_GROUP).load()
    except Exception as exc:  # any failure of a plug-in's import is the plug-in's, not ours
        raise GameNotLoadable(
            f"game {found.name!r} cannot be loaded: entry point {found.declaration}: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    from protocols.base import Game

    if not isinstance(loaded, Game):
        raise GameNotLoadable(
            f"game {found.name!r} cannot be loaded: entry point {found.declaration} names "
            f"a {type(loaded).__name__}, not an instance of protocols.base.Game"
        )
    if _key(loaded.name) != found.name:
        raise GameNotLoadable(
            f"game {found.name!r} cannot be loaded: entry point {found.declaration} names "
            f"a game called {loaded.name!r}; the entry point's name must be the game's name"
        )
    game: Game[Any, Any, Any] = loaded
    return game


def refresh() -> None:
    """Read the installed games again: for a process that outlives an install (and tests)."""
    importlib.invalidate_caches()
    _registry.cache_clear()
    game_packages.cache_clear()
