"""What a match between two bots (`referee match`) is made of before it plays: the players'
names, its directory, the tournament config it is kept as (`match.toml`: built from the
command's flags as a `TournamentConfig`, and written from that object with tomlkit, its
comments with it), and, when its directory already holds games, whether this command can
resume them, said in the match's own words (its options, not the config's fields).

The names say what differs between the two commands: `builtin:search --depth 3` against
`builtin:search --depth 1` is `search(depth 3)` against `search(depth 1)`.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.players import BUILTIN_PREFIX
from referee.toml_config.writing import toml_text, toml_value
from referee.tournament.config import (
    TournamentConfig,
    book_change,
    changed_keys,
    comparable_key,
)

CONFIG_NAME = "match.toml"
DEFAULT_ROOT = Path("referee-matches")
NAME_LIMIT = 64  # a player's name at most (the config's limit)


# -- names ------------------------------------------------------------------------------------


def player_name(command: str) -> str:
    """A short name for a bot from its command: `builtin:greedy ...` -> `greedy`,
    `python bots/v2/main.py` -> `v2`... the last word that names a file, without suffix (its
    folder when the file is a main, bot or player)."""
    words = command.split()
    if words and words[0].startswith(BUILTIN_PREFIX):
        name = words[0][len(BUILTIN_PREFIX) :]
    else:
        files = [w for w in words if "/" in w or "." in w.lstrip(".")]
        name = Path(files[-1]).stem if files else (words[0] if words else "bot")
        if name in ("main", "bot", "player", "__main__") and files:
            name = Path(files[-1]).parent.name or name  # a bot's folder names it better
    name = re.sub(r"[^A-Za-z0-9_.+-]+", "-", name).strip("-.") or "bot"
    return name[:32]


def _groups(command: str) -> list[str]:
    """A command's words grouped as its options: `--depth 3` is `depth 3`, `-v` is `v`, and
    any other word stands alone."""
    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes: the words as typed
        words = command.split()
    groups: list[list[str]] = []
    takes_value = False  # the last word was an option without `=`: the next may be its value
    for word in words:
        if word.startswith("-") and not re.fullmatch(r"-[0-9.]+", word):
            key, sep, value = word.lstrip("-").partition("=")
            groups.append([key, value] if sep else [key])
            takes_value = not sep
        elif takes_value:
            groups[-1].append(word)
            takes_value = False
        else:
            groups.append([word])
    return [" ".join(g) for g in groups]


def _with_differences(base: str, own: list[str], other: list[str]) -> str:
    differences = [g for g in own if g not in other]
    if not differences:
        return base
    text = re.sub(r"\s+", " ", ", ".join(differences))
    text = "".join(ch for ch in text if ch.isprintable())
    room = NAME_LIMIT - len(base) - 2
    if len(text) > room:
        text = text[: room - 3] + "..."
    return f"{base}({text})"


def player_names(command1: str, command2: str) -> tuple[str, str]:
    """Distinct names for the two players: what their commands name, and, when that is the
    same bot, the options in which the commands differ (a suffix when even they agree)."""
    first, second = player_name(command1), player_name(command2)
    if first != second:
        return first, second
    groups1, groups2 = _groups(command1), _groups(command2)
    named = _with_differences(first, groups1, groups2), _with_differences(second, groups2, groups1)
    if named[0] != named[1]:
        return named
    return f"{first}-1", f"{second}-2"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "-", name).strip("-.") or "bot"


def default_directory(first: str, second: str) -> Path:
    return DEFAULT_ROOT / f"{_slug(first)}-vs-{_slug(second)}"


# -- the config -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchSpec:
    """Everything a match's config says: the game and its options, the two players (name,
    command), the number of games, the seed, the time control and the bots' isolation.

    `folder` is where the commands were given (`referee match` is run): the bots run there and
    their relative paths are read from there, as in `referee play`. The config names it as each
    bot's `cwd`, absolute, so that the match resumes from anywhere, with `shared_cwd`: the folder
    holds both bots and more, and is no part of either bot's content hash."""

    game: str
    players: tuple[tuple[str, str], tuple[str, str]]
    games: int
    seed: int = 1
    options: Mapping[str, Any] = field(default_factory=dict)
    time_control: Mapping[str, float] = field(default_factory=dict)  # [time_control] entries
    isolation: str | None = None  # the isolation level; None: the default (auto)
    openings: Mapping[str, Any] = field(default_factory=dict)  # [openings] entries
    position_capable: frozenset[int] = frozenset()  # the players (0, 1) that declared `position`
    folder: Path | None = None  # where the commands were given (None: the match's directory)

    def config(self) -> TournamentConfig:
        """The tournament config of this match (kept as `match.toml` in its directory);
        pydantic's ValidationError for flags it cannot hold."""
        first, second = self.players
        entries: dict[str, Any] = {
            "name": f"{first[0]} vs {second[0]}",
            "game": self.game,
            "seed": self.seed,
            "games_per_pairing": self.games,
            "directory": ".",
        }
        # A table the flags leave empty is left out, as the file leaves it out.
        tables = {"game_options": self.options, "time_control": self.time_control}
        if self.isolation is not None:
            tables["match"] = {"isolation": {"level": self.isolation}}
        tables["openings"] = self.openings
        entries |= {name: dict(table) for name, table in tables.items() if table}
        entries["players"] = [
            self._player(i, name, cmd) for i, (name, cmd) in enumerate(self.players)
        ]
        return TournamentConfig.model_validate(entries)

    def _player(self, index: int, name: str, command: str) -> dict[str, Any]:
        entry: dict[str, Any] = {"name": name, "command": command}
        builtin = command.strip().startswith(BUILTIN_PREFIX)
        if self.folder is not None and not builtin:
            entry |= {"cwd": str(self.folder.absolute()), "shared_cwd": True}
        if not builtin:
            entry["trusted"] = True
        if index in self.position_capable:
            entry["capabilities"] = ["position"]
        return entry


# How `match.toml` begins: what it is, and how it is used again.
HEADER = (
    "A match between two bots, written by `referee match` from its flags.",
    "Run the same command again to resume it (with more --games, it grows).",
)
# Why a bot's command may name files outside its folder (`trusted`), beside it.
TRUSTED = "typed by whoever runs the match, who vouches for it"
# The order of its settings, tables after the values they follow.
_ORDER = (
    "name", "game", "seed", "games_per_pairing", "directory",
    "game_options", "time_control", "match", "openings", "players",
)  # fmt: skip


def config_text(config: TournamentConfig) -> str:
    """A match's config (`MatchSpec.config`) as `match.toml`: what its flags set, with comments
    that say what the file is and why its bots' commands are trusted; ValueError for a value
    TOML cannot hold."""
    values = config.model_dump(mode="json", exclude_unset=True)
    ordered = dict(sorted(values.items(), key=lambda item: _place(item[0])))
    players = enumerate(ordered.get("players", []))
    comments: dict[tuple[str | int, ...], str] = {
        ("players", i, "trusted"): TRUSTED for i, p in players if "trusted" in p
    }
    return toml_text(ordered, HEADER, comments)


def _place(key: str) -> int:
    return _ORDER.index(key) if key in _ORDER else len(_ORDER)


def shown_value(value: Any) -> str:
    """A setting's value in a message, as TOML writes it (never a Python or JSON dict); `none`
    where it is not set."""
    try:
        return "none" if value is None else toml_value(value)
    except ValueError:  # what TOML cannot hold (an infinity): as Python prints it
        return str(value)


# -- resuming ---------------------------------------------------------------------------------


def resume_refusal(
    stored: Mapping[str, Any], wanted: Mapping[str, Any], directory: Path
) -> str | None:
    """Why the match stored in `directory` (its schedule key) cannot be resumed by a command
    asking for `wanted`, in the command's words; None when it can (the same match, or the same
    with more games)."""
    wanted = comparable_key(stored, dict(wanted))
    changed = changed_keys(stored, wanted)
    games = "games_per_pairing"
    if games in changed and wanted[games] > stored.get(games, math.inf):
        changed.remove(games)  # more games: the runner adds them
    if not changed:
        return None
    if changed == ["openings"] and (book := book_change(stored, wanted)) is not None:
        return (
            f"the match in {directory} cannot be resumed: {book}. Put the old book back to "
            "resume it, or give another --dir to start a new match."
        )
    differences = "; ".join(_difference(key, stored.get(key), wanted.get(key)) for key in changed)
    return (
        f"the match in {directory} was started with other settings: {differences}. Run it "
        "with the same flags to resume it (--games may grow), or give another --dir to start a "
        "new match."
    )


def _difference(key: str, old: Any, new: Any) -> str:
    if key == "games_per_pairing":
        return f"--games {old}, not {new} (a match can grow, not shrink)"
    if key == "seed":
        return f"--seed {old}, not {new}"
    if key == "game":
        return f"the game {old}, not {new}"
    if key == "openings":
        return f"the openings {_openings(old)}, not {_openings(new)}"
    if key == "players":
        return (
            f"the players {_listed(old)}, not {_listed(new)} (the names come from -p1 and -p2, "
            "or --name1 and --name2)"
        )
    if key == "game_options" and isinstance(old, dict) and isinstance(new, dict):
        keys = sorted({*old, *new}, key=str)
        return (
            f"the game options {_options(old, keys, new)}, not {_options(new, keys, old)} "
            "(-o KEY=VALUE)"
        )
    return f"{key} {shown_value(old)}, not {shown_value(new)}"


def _openings(value: Any) -> str:
    """A match's `[openings]` in the flags that ask for them."""
    if not isinstance(value, dict) or not (value.get("plies") or value.get("book")):
        return "none (from the start)"
    if value.get("book"):
        return (
            f"--openings {value['book']} --book-order {value.get('order')} "
            f"--book-start {value.get('start')}"
        )
    return f"--opening-plies {value['plies']}"


def _listed(names: Any) -> str:
    return " and ".join(map(str, names)) if isinstance(names, list) else json.dumps(names)


def _options(own: dict[str, Any], keys: list[str], other: dict[str, Any]) -> str:
    shown = [f"{k}={json.dumps(own.get(k))}" for k in keys if own.get(k) != other.get(k)]
    return " ".join(shown)
