"""Who plays a game: a player's specification, and how a built-in bot's command is made.

It sits below the match, so that a tournament's config, a cluster's orders, the pre-flight
check and the course tools name players without importing the match. The referee never imports
`bots`: the built-in bots are named here (tests/bots/test_builtin_names.py keeps the list equal
to the bots' own) and run as `python -m bots NAME`.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from protocols.options import GameOptions
from referee.builtin_tables import table_cache_directory
from referee.isolation.confinement import reach_check
from referee.isolation.levels import Isolation
from referee.isolation.limits import Limits

BUILTIN_PREFIX = "builtin:"
BUILTIN_BOTS = ("random", "greedy", "search", "perfect", "applet", "lielow-reference")
# The built-in bots that play only some games, and those games; the others play every game (the
# same test keeps this what the bots themselves accept).
BUILTIN_GAMES = {"perfect": ("l-game", "alak"), "lielow-reference": ("lielow",)}
# The built-in bots that read solved tables or a compiled engine from the cache folder.
CACHED_BOTS = ("perfect", "search")
# A built-in bot reads nothing of its folder, so it runs in `/`: the caller's folder (a private
# home, a tournament's folder) is neither needed by it nor shown to it.
BUILTIN_CWD = Path("/")
POSITION = "position"  # the protocol extension that starts a game from an opening
SEED_PLACEHOLDER = "{seed}"  # in a player's command: replaced by each game's seed


class OpeningRefused(ValueError):
    """A game with an opening between bots of which one has not declared `position`."""


def as_builtin(opponent: str) -> str:
    """An opponent as `referee check` and a course name it: a built-in bot's name (`random`,
    `perfect --seed 3`) as its command (`builtin:...`); anything else as it is."""
    stripped = opponent.strip()
    return BUILTIN_PREFIX + stripped if stripped.partition(" ")[0] in BUILTIN_BOTS else opponent


def builtins_playing(game: str) -> list[str]:
    """The built-in bots that play `game`."""
    return [name for name in BUILTIN_BOTS if game in BUILTIN_GAMES.get(name, (game,))]


def builtin_refusal(command: str, game: str) -> str | None:
    """Why `command`, when it names a built-in bot (`builtin:NAME [args]`), cannot play `game`:
    no built-in bot has that name, or that bot plays other games only. None for a command that
    can, or is not a built-in: its start is for the game to tell."""
    stripped = command.strip()
    if not stripped.startswith(BUILTIN_PREFIX):
        return None
    name = stripped[len(BUILTIN_PREFIX) :].partition(" ")[0]
    if name not in BUILTIN_BOTS:
        return f"{BUILTIN_PREFIX}{name} is not a built-in bot ({', '.join(BUILTIN_BOTS)})"
    if name not in builtins_playing(game):
        plays = " and ".join(BUILTIN_GAMES[name])
        return (
            f"{BUILTIN_PREFIX}{name} plays only {plays}, not {game} (the built-in bots of "
            f"{game}: {', '.join(builtins_playing(game))})"
        )
    return None


def is_builtin(command: str) -> bool:
    """Whether `command` is a built-in bot as `resolve_command` expands it."""
    return command.startswith(shlex.join([sys.executable, "-m", "bots"]) + " ")


def needs_tables(command: str) -> bool:
    """Whether `command` runs a built-in bot that reads solved tables or a compiled core from
    the cache folder (the referee builds them before the game: referee/builtin_tables.py)."""
    return any(f"-m bots {name} " in command for name in CACHED_BOTS)


def resolve_command(command: str, game: str, options: GameOptions | None = None) -> str:
    """Expand `builtin:NAME [args]` to the command that runs that built-in bot for `game`.

    Game options are not sent on the wire, so a built-in bot is told them on its command line
    (only those that differ from the defaults). Any other command is returned unchanged.
    """
    stripped = command.strip()
    if not stripped.startswith(BUILTIN_PREFIX):
        return command
    name, _, rest = stripped[len(BUILTIN_PREFIX) :].partition(" ")
    argv = [sys.executable, "-m", "bots", name, "--game", game]
    changed = options.model_dump(mode="json", exclude_defaults=True) if options else {}
    if changed:
        argv += ["--options", json.dumps(changed, separators=(",", ":"))]
    if name in CACHED_BOTS:
        # Its HOME and environment are not the referee's: it is told where its solved tables
        # are (a folder its command line names is also visible in its sandbox).
        argv += ["--cache-dir", str(table_cache_directory())]
    return shlex.join(argv) + (f" {rest.strip()}" if rest.strip() else "")


class PlayerSpec(BaseModel):
    """A player: a display name and the command that starts its program."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    command: str
    cwd: Path | None = None
    limits: Limits | None = None  # this player's own resource limits; None: the match's
    # Protocol extensions it has declared it understands (its configuration says so; a bot is
    # never asked): "position", a game started from an opening (spec 1.10).
    capabilities: frozenset[str] = frozenset()
    content_hash: str | None = None  # what the bot is made of (referee/bot_content.py)

    def understands(self, extension: str) -> bool:
        """Whether it may be sent `extension`'s lines: declared, or a built-in bot (which all
        understand every extension)."""
        return extension in self.capabilities or is_builtin(self.command)

    @classmethod
    def for_game(
        cls,
        name: str,
        command: str,
        game: str,
        options: GameOptions,
        seed: int,
        **fields: Any,
    ) -> PlayerSpec:
        """A player as a config writes it, ready for one game: a built-in bot's command
        expanded for `game` and its options, `{seed}` replaced by the game's seed. The other
        fields (cwd, limits, capabilities, content_hash) are validated as given."""
        resolved = resolve_command(command, game, options).replace(SEED_PLACEHOLDER, str(seed))
        return cls.model_validate({"name": name, "command": resolved, **fields})


def player_cwd(player: PlayerSpec) -> Path | None:
    """The folder a player runs in (None: the referee's own)."""
    return BUILTIN_CWD if is_builtin(player.command) else player.cwd


def unreachable_player(players: Sequence[PlayerSpec], isolation: Isolation) -> str | None:
    """Before a run's first game (no bot started): the refusal of the first of `players` that
    this machine cannot run under `isolation` as a user of its own ("cannot run NAME here: "
    the path that stops it and the fix), or None."""
    for player in players:
        if problem := reach_check(player.command, player_cwd(player), isolation):
            return f"cannot run {player.name} here: {problem}"
    return None


def refuse_undeclared(players: Sequence[PlayerSpec], opening: Sequence[str] | None) -> None:
    """Raise `OpeningRefused`, naming the bot, if a game from `opening` cannot be played: a bot
    that has not declared the `position` extension is never sent its lines, and a game is never
    played from the start instead."""
    if not opening:
        return
    for player in players:
        if not player.understands(POSITION):
            raise OpeningRefused(
                f"{player.name} has not declared the {POSITION!r} extension, so it cannot start "
                f'from an opening: declare it (capabilities = ["{POSITION}"] for a tournament '
                "player, --position-capable for play) or play without openings"
            )
