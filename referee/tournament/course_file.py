"""The course runner's tournament file (`tournament.toml` of the CS4341 Tournament Runner), read
as it is and turned into this referee's own config: a group-stage tournament (`format =
"stages"`, see docs/formats.md).

The course file has `game`, an optional `[settings]` table (`timeout`, `visual`,
`random_assignment`, `debug`, `port`), optional `[groups]` ("Group A" = [players]) and
`[agents]` (name = command, `${VAR}` replaced from the environment). `timeout` is the time per
move; the others are accepted and change nothing here: every pairing plays once with each colour
(so `random_assignment` has nothing to draw), and `visual`/`port` are `tournament run --web`'s
business. An optional `[referee]` table, which the course runner does not have, takes any
setting of this referee's own config (seed, concurrency, directory, time control, match...).

The games are played by the course runner's rules (`COURSE_TIME_CONTROL`,
`COURSE_GAME_OPTIONS`): no draw by repetition (the course code never checks it) and no start-up
allowance on a bot's first move (the course runner gives none). Either comes back through
`[referee]`: `game_options = { repetition = 3 }`, `time_control = { startup_allowance = 5.0 }`.

Problems are reported at the course file's own lines and fields (`agents.team3`,
`settings.timeout`), like every other config problem.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocols import UnknownGame, get_game
from referee.toml_config.unknown import unknown_setting

Loc = tuple[str | int, ...]
# What the course runner does that this referee's defaults do not (its own config's fields).
COURSE_TIME_CONTROL = {"startup_allowance": 0.0}
COURSE_GAME_OPTIONS = {"repetition": 0}  # for the games that have the option
SETTINGS = frozenset({"timeout", "visual", "random_assignment", "debug", "port"})
TOP = frozenset({"game", "settings", "groups", "agents", "referee"})
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def is_course_file(raw: dict[str, Any]) -> bool:
    """A course runner's file names its players in `[agents]` (ours in `[[players]]`)."""
    return "agents" in raw


@dataclass(frozen=True)
class CourseFile:
    """A course file turned into this referee's config, and where its fields came from."""

    config: dict[str, Any]
    problems: list[tuple[Loc, str]]  # found while translating, at the course file's fields
    agents: list[str]  # player names, in file order

    def where(self, loc: Loc) -> Loc:
        """The course file's field for a field of the translated config."""
        head = loc[0] if loc else ""
        if head == "players" and len(loc) > 1 and isinstance(loc[1], int):
            if loc[1] < len(self.agents):
                return ("agents", self.agents[loc[1]])
            return ("agents",)
        if head == "time_control" and loc[1:2] == ("move_timeout",):
            return ("settings", "timeout")
        if head == "stages" and loc[1:2] == ("groups",):
            return ("groups", *loc[2:])
        if head in ("game", "game_options"):
            return loc
        return ("referee", *loc)


def read_course_file(raw: dict[str, Any], path: Path) -> CourseFile:
    problems: list[tuple[Loc, str]] = []
    problems += [((key,), unknown_setting(key, TOP)) for key in raw if key not in TOP]
    settings = _table(raw, "settings", problems)
    problems += [
        (("settings", key), unknown_setting(key, SETTINGS))
        for key in settings
        if key not in SETTINGS
    ]
    agents = _table(raw, "agents", problems)
    players: list[dict[str, Any]] = []
    for name, command in agents.items():
        if not isinstance(command, str):
            problems.append((("agents", name), "the command must be a string"))
            continue
        expanded, missing = _expand(command)
        if missing:
            problems.append((("agents", name), f"${{{missing}}} is not set in the environment"))
        # Its commands are the instructor's, each bot named by its path (no `cwd`): trusted.
        players.append({"name": name, "command": expanded, "trusted": True})
    config: dict[str, Any] = {
        "name": path.stem,
        "game": raw.get("game", ""),
        "format": "stages",
        "games_per_pairing": 2,  # the course: every pairing once with each colour
        "players": players,
    }
    if "game" not in raw:
        problems.append((("game",), "missing: the game to play"))
    config["time_control"] = dict(COURSE_TIME_CONTROL)
    if "timeout" in settings:
        config["time_control"]["move_timeout"] = settings["timeout"]
    config["game_options"] = _course_options(config["game"])
    groups = _table(raw, "groups", problems)
    if groups:
        config["stages"] = {"groups": groups}
    own = _table(raw, "referee", problems)
    for key, value in own.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key] = config[key] | value
        else:
            config[key] = value
    return CourseFile(config, problems, [p["name"] for p in players])


def _course_options(game: object) -> dict[str, Any]:
    """The course's game options for `game`: those of `COURSE_GAME_OPTIONS` the game has (none
    for a name that is not a game: that is reported where the game is checked)."""
    try:
        fields = get_game(str(game)).options_model.model_fields
    except UnknownGame:
        return {}
    return {key: value for key, value in COURSE_GAME_OPTIONS.items() if key in fields}


def _table(raw: dict[str, Any], key: str, problems: list[tuple[Loc, str]]) -> dict[str, Any]:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        problems.append(((key,), "must be a table"))
        return {}
    return value


def _expand(command: str) -> tuple[str, str | None]:
    """`${VAR}` replaced from the environment; the first variable that is not set, if any."""
    missing: list[str] = []

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            missing.append(name)
            return match.group(0)
        return os.environ[name]

    return _VAR.sub(value, command), (missing[0] if missing else None)
