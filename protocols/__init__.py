"""The games and their wire formats: pure rules, no I/O.

The registry finds every game, the five built-in ones included, through Python entry points,
so a game installed as a package of its own plays exactly like a built-in one:

- group `referee.games`: one entry point per game; its name is the game's canonical name and
  its value the object that implements `protocols.base.Game`, e.g.
  `connect-four = "connect_four.rules:GAME"`.
- group `referee.game_aliases` (optional): one entry point per other spelling the command line
  accepts; its name is the alias and its value the very same object reference as the game's
  entry in `referee.games`, e.g. `laskermorris = "protocols.lasker_morris:GAME"`.

Resolving a name reads installed metadata only: an alias finds its game by comparing object
references, so no game module is imported until `get_game` asks for that one game, and neither
is `protocols.base` (pydantic): the command line resolves names and lists games before it
loads any rules. A game that cannot be loaded (its module is missing or fails to import, or the
object is not a `Game`) raises `GameNotLoadable`, naming the distribution and the entry point.
A plug-in may also declare a search evaluation (`referee.evaluations`, read by `bots`) and a
web board renderer (`referee.renderers`, read by `referee.web`); docs/new-game.md has it all.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from importlib import metadata

    from protocols.base import Game

GAMES_GROUP = "referee.games"
ALIASES_GROUP = "referee.game_aliases"
# The distribution that ships the built-in games: listed first, in the order below (metadata
# keeps no order: setuptools writes entry points sorted by name).
BUILTIN_DISTRIBUTION = "referee"
BUILTIN_ORDER = ("lasker-morris", "lielow", "legionnaires", "l-game", "alak")
# What pyproject.toml declares for them, for a source tree used without being installed (no
# metadata to read): the built-in games must be there whatever the installation.
BUILTIN_FALLBACK = {
    "lasker-morris": ("protocols.lasker_morris:GAME", ("laskermorris",)),
    "lielow": ("protocols.lielow:GAME", ()),
    "legionnaires": ("protocols.legionnaires:GAME", ()),
    "l-game": ("protocols.l_game:GAME", ("lgame",)),
    "alak": ("protocols.alak:GAME", ()),
}


class GameEntry(NamedTuple):
    """One installed game, as its package's metadata declares it (nothing imported)."""

    name: str  # the canonical name: the entry point's name
    value: str  # `module:attribute`, the object implementing `Game`
    aliases: tuple[str, ...]
    distribution: str  # the distribution that declares it, e.g. `referee-connect-four`
    version: str

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
        kind = " (built-in)" if self.builtin else ""
        where = f"distribution {self.distribution} {self.version}{kind}"
        return f"{self.name} = {self.value!r} (group {GAMES_GROUP!r}, {where})"


class UnknownGame(ValueError):
    """A game name that is not in the registry."""


class GameNotLoadable(UnknownGame):
    """A game that is installed but whose object cannot be loaded."""


def _distribution_of(entry_point: metadata.EntryPoint) -> tuple[str, str]:
    dist = entry_point.dist
    if dist is None:
        return "an unknown distribution", "?"
    return dist.name, dist.version


def _builtin_rank(name: str) -> int:
    key = _key(name)
    return BUILTIN_ORDER.index(key) if key in BUILTIN_ORDER else len(BUILTIN_ORDER)


def _key(name: str) -> str:
    return name.strip().lower()


@functools.cache
def _registry() -> tuple[dict[str, GameEntry], dict[str, str]]:
    """Canonical name -> entry, and alias -> canonical name, read once per process.

    The built-in games come first; then other distributions by name. A name declared twice
    (two distributions, or a game named like an earlier game's alias) keeps its first meaning.
    """
    from importlib import metadata  # only here: a built-in game is found without it

    installed = metadata.entry_points()  # one scan of the installed distributions
    alias_points = [(_key(a.name), a.value.strip()) for a in installed.select(group=ALIASES_GROUP)]
    declared = []
    for ep in installed.select(group=GAMES_GROUP):
        name, value = _key(ep.name), ep.value.strip()
        spellings = tuple(a for a, target in alias_points if target == value and a != name)
        declared.append(GameEntry(name, value, spellings, *_distribution_of(ep)))
    if not any(e.builtin for e in declared):
        for name, (value, spellings) in BUILTIN_FALLBACK.items():
            declared.append(GameEntry(name, value, spellings, BUILTIN_DISTRIBUTION, "source"))
    declared.sort(
        key=lambda e: (
            (0, _builtin_rank(e.name), "", e.name)
            if e.builtin
            else (1, 0, e.distribution.lower(), e.name)
        )
    )
    games: dict[str, GameEntry] = {}
    taken: set[str] = set()  # names and aliases of the games kept so far
    for found in declared:
        if found.name not in taken:
            games[found.name] = found
            taken |= {found.name, *found.aliases}
    alias_table: dict[str, str] = {}
    for name, entry in games.items():
        for alias in entry.aliases:
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
    return tuple(dict.fromkeys(ep.value.split(":")[0].split(".")[0].strip() for ep in points))


def entries() -> list[GameEntry]:
    """Every installed game, built-ins first."""
    return list(_registry()[0].values())


def game_names() -> list[str]:
    """The canonical names of all games, in registry order."""
    return list(_registry()[0])


def entry(name: str) -> GameEntry:
    """The registry entry of a canonical name or alias."""
    return _registry()[0][canonical_name(name)]


def aliases(name: str) -> tuple[str, ...]:
    """The other spellings of a game (e.g. `laskermorris`), for a canonical name or an alias."""
    return entry(name).aliases


# Every spelling of a built-in game -> its canonical name: a built-in game is resolved and
# loaded without scanning the installed metadata (15 ms, and importlib.metadata 10 ms more, at
# every `referee play`); a plug-in cannot take these names anyway.
_BUILTIN_SPELLINGS = {
    spelling: name
    for name, (_, spellings) in BUILTIN_FALLBACK.items()
    for spelling in (name, *spellings)
}


# The help line of a command's game argument: the built-in games, with no scan of the installed
# metadata for plug-ins (about 25 ms at every `referee play`); `referee games` lists them all.
GAME_HELP = (
    "a built-in game ("
    + ", ".join(
        name + "".join(f" or {alias}" for alias in BUILTIN_FALLBACK[name][1])
        for name in BUILTIN_ORDER
    )
    + ") or a plug-in's: `referee games` lists every game installed"
)


def canonical_name(name: str) -> str:
    """Resolve an alias (e.g. `laskermorris`) to the canonical game name."""
    if (builtin := _BUILTIN_SPELLINGS.get(_key(name))) is not None:
        return builtin
    games, alias_table = _registry()
    key = _key(name)
    key = alias_table.get(key, key)
    if key not in games:
        known = ", ".join(games) or "none (is the referee installed? `pip install -e .`)"
        raise UnknownGame(f"unknown game {name!r}; known games: {known}")
    return key


def get_game(name: str) -> Game[Any, Any, Any]:
    """The game object for a canonical name or alias, imported on first use."""
    canonical = canonical_name(name)
    if canonical in BUILTIN_FALLBACK:
        module, _, attribute = BUILTIN_FALLBACK[canonical][0].partition(":")
        builtin: Game[Any, Any, Any] = getattr(importlib.import_module(module), attribute)
        return builtin
    from importlib import metadata

    found = entry(canonical)
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
