"""The final's tournament file (`[final] tournament` of arena.toml): the formats it may have,
what of it the final keeps, and the final's own config made from it and the pinned versions.

Two formats are read, as `referee tournament run` reads them: this referee's tournament config
(`[[players]]`), and the course runner's tournament.toml (`[agents]`, translated by
`referee/tournament/course_file.py`). The final keeps every setting of the file (its format and
the format's table, seed, games per pairing, openings, concurrency, time control, match
settings...); arena.toml's game options, `[time_control]` and `[match]` apply wherever the file
says nothing, so that the final is refereed as the ladder was unless the file says otherwise.

The players are the students' pinned versions, which the file cannot know. It may list only
built-in bots, each named `builtin-NAME`: they play as baselines (never graded; the grading
scheme's `[baselines]` points are for beating them), and each baseline of the scheme must be
one. No setting may name a student: `[stages] groups`, `[knockout] seeds`, seeding a knockout by
an earlier tournament's ratings, or a course file's `[groups]`. The file's `directory` is
replaced by the arena's `final/`.

`check_final_file` checks the file when arena.toml is read, with stand-in students: a broken
final is found in week one, not at the deadline. `final_config` makes the final's config with
the real players, and `config_text` writes it (DIR/final/tournament.toml).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from protocols import UnknownGame, canonical_name
from referee.cluster.address import parse_address
from referee.course.scheme import BASELINE_PREFIX
from referee.players import BUILTIN_PREFIX
from referee.printable import printable
from referee.toml_config.lines import Loc
from referee.toml_config.reading import (
    ConfigFileError,
    describe_problems,
    model_problems,
    parse_toml,
    read_text,
)
from referee.toml_config.writing import toml_value
from referee.tournament.config import ADDRESS_CHECK, TournamentConfig
from referee.tournament.config_file import check_config, check_openings
from referee.tournament.course_file import CourseFile, is_course_file, read_course_file

_BARE = re.compile(r"[A-Za-z0-9_-]+")
STAND_INS = 64  # students the file is checked with before anybody is pinned
SET_BY_THE_ARENA = ("directory", "players", "name")


class FinalFileError(ConfigFileError):
    """A final's tournament file that cannot be used; one `FILE:LINE: FIELD: problem` a line."""


@dataclass(frozen=True)
class Entrant:
    """A student's pinned version as a player of the final."""

    name: str  # the username
    command: str
    folder: str  # where it runs, relative to the final's folder
    capabilities: tuple[str, ...]
    note: str  # a comment for its entry: which version, its content hash


@dataclass(frozen=True)
class FinalFile:
    """A final's tournament file as this referee's config reads it."""

    path: Path
    text: str
    config: dict[str, Any]  # a course file translated; its players are the baselines
    course: CourseFile | None  # the course runner's file, for its own field names

    def where(self, loc: Loc) -> Loc:
        """The field of the file as written, for a field of its config."""
        if self.course is None:
            return loc
        return ("agents",) if loc == ("players",) else self.course.where(loc)

    def described(self, problems: Sequence[tuple[Loc, str]]) -> str:
        located = [(self.where(loc), message) for loc, message in problems]
        return describe_problems(self.text, self.path, located)


def read_final_file(path: Path) -> FinalFile:
    """Read the file in either format; `FinalFileError` for one that does not read."""
    text = read_text(path, what="the final's tournament file", error=FinalFileError)
    raw = parse_toml(text, path, error=FinalFileError)
    if not is_course_file(raw):
        return FinalFile(path, text, raw, None)
    course = read_course_file(raw, path)
    if course.problems:
        raise FinalFileError(describe_problems(text, path, course.problems))
    config = {k: v for k, v in course.config.items() if k != "name"}  # its name is its file's
    return FinalFile(path, text, config, course)


def own_problems(final: FinalFile, game: str, baselines: Sequence[str]) -> list[tuple[Loc, str]]:
    """What the final cannot take from the file, at the config's fields: another game, players
    other than named built-in bots, a setting that names students, a baseline of the grading
    scheme (`baselines`: its `[baselines]` names) that does not play."""
    config = final.config
    problems: list[tuple[Loc, str]] = []
    named = config.get("game")
    if isinstance(named, str) and _canonical(named) != game:
        problems.append((("game",), f"the final plays the arena's game, {game}, not {named}"))
    players = config.get("players", [])
    names = []
    for i, player in enumerate(players if isinstance(players, list) else []):
        problem = _baseline_problem(player)
        if problem is not None:
            problems.append((("players", i), problem))
        elif isinstance(player, dict):
            names.append(player.get("name"))
    problems += _naming_students(config)
    for baseline in baselines:
        name = BASELINE_PREFIX + baseline
        if name not in names:
            problems.append(
                (
                    ("players",),
                    f"the grading scheme gives points for beating {name}, which does not play: "
                    f'add it as a player (name = "{name}", command = '
                    f'"{BUILTIN_PREFIX}{baseline} --seed {{seed}}")',
                )
            )
    return problems


_STUDENTS = "the final's players are the students' versions pinned at the deadline"


def _naming_students(config: dict[str, Any]) -> list[tuple[Loc, str]]:
    """The settings that would name students, who are not known before the pin."""
    problems: list[tuple[Loc, str]] = []
    stages, knockout = config.get("stages"), config.get("knockout")
    if isinstance(stages, dict) and stages.get("groups"):
        problems.append(
            (("stages", "groups"), f"{_STUDENTS}: its groups are drawn by the seed, not named here")
        )
    if not isinstance(knockout, dict):
        return problems
    seed_them = f"{_STUDENTS}: seed them with seeding = 'random' (or 'config')"
    if knockout.get("seeds"):
        problems.append((("knockout", "seeds"), seed_them))
    if knockout.get("seeding") == "ratings":
        problems.append((("knockout", "seeding"), seed_them))
    elif knockout.get("ratings_from") is not None:
        problems.append((("knockout", "ratings_from"), f"{_STUDENTS}: nothing rated them yet"))
    return problems


def _baseline_problem(player: object) -> str | None:
    """Why a player of the file cannot play in the final, or None for a named built-in bot."""
    if not isinstance(player, dict):
        return None  # the config's own check says what a player must be
    command, name = player.get("command"), player.get("name")
    if not isinstance(command, str) or not command.strip().startswith(BUILTIN_PREFIX):
        return (
            f"{_STUDENTS}, which the arena adds: list only built-in bots here (baselines, "
            f"command = {BUILTIN_PREFIX}NAME)"
        )
    if not isinstance(name, str) or not name.startswith(BASELINE_PREFIX):
        return f"name it {BASELINE_PREFIX}..., as every baseline is (it is never graded)"
    return None


def _canonical(name: str) -> str:
    try:
        return canonical_name(name)
    except UnknownGame:
        return name


def final_config(
    final: FinalFile,
    *,
    name: str,
    game_options: Mapping[str, Any],
    time_control: Mapping[str, Any],
    match: Mapping[str, Any],
    concurrency: int | None,
    entrants: Sequence[Entrant],
) -> dict[str, Any]:
    """The final's tournament config: the file's settings over the arena's, its baselines and
    the `entrants`, played in the final's own folder (`directory = "."`)."""
    file = final.config
    given_name = file.get("name")
    config: dict[str, Any] = {
        "name": given_name if isinstance(given_name, str) else f"{name}: the final"
    }
    config |= {k: v for k, v in file.items() if k not in SET_BY_THE_ARENA}
    config["game_options"] = _over(game_options, file.get("game_options"))
    config["time_control"] = _over(time_control, file.get("time_control"))
    config["match"] = _over(match, file.get("match"), deep=True)
    if "concurrency" not in file and concurrency is not None:
        config["concurrency"] = concurrency
    config["openings"] = _absolute_book(file.get("openings"), final.path.parent)
    if not config["openings"]:
        del config["openings"]
    config["directory"] = "."
    baselines = file.get("players", [])
    baselines = baselines if isinstance(baselines, list) else []
    config["players"] = [*baselines, *map(_entry, entrants)]
    return config


def _over(base: Mapping[str, Any], given: object, *, deep: bool = False) -> Any:
    """`given` (the file's table) over `base` (the arena's); `given` as it is when it is not
    a table, for the config's check to report."""
    if given is None:
        return dict(base)
    if not isinstance(given, dict):
        return given
    merged = dict(base)
    for key, value in given.items():
        inner = merged.get(key)
        if deep and isinstance(inner, dict) and isinstance(value, dict):
            merged[key] = {**inner, **value}
        else:
            merged[key] = value
    return merged


def _absolute_book(openings: object, folder: Path) -> Any:
    """The openings table with its book's path from the file's folder, not the final's."""
    if not isinstance(openings, dict):
        return {} if openings is None else openings
    book = openings.get("book")
    if isinstance(book, str) and not Path(book).is_absolute():
        return {**openings, "book": str((folder / book).absolute())}
    return dict(openings)


def _entry(entrant: Entrant) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": entrant.name, "command": entrant.command}
    entry["cwd"] = entrant.folder
    if entrant.capabilities:
        entry["capabilities"] = list(entrant.capabilities)
    return entry


def config_problems(config: dict[str, Any], base: Path) -> list[tuple[Loc, str]]:
    """Every check `referee tournament run` makes of a config, on the final's (`base`: the
    folder its relative paths start from)."""
    try:
        model = TournamentConfig.model_validate(config, context={ADDRESS_CHECK: parse_address})
    except ValidationError as exc:
        return model_problems(exc, TournamentConfig)
    return check_config(model) + check_openings(model, base)


def stand_ins(count: int = STAND_INS) -> list[Entrant]:
    """Students for checking the file before the deadline (each able to start from an opening,
    which only the real ones can say)."""
    return [
        Entrant(f"student-{i}", "./bot", f"student-{i}", ("position",), "") for i in range(count)
    ]


def check_final_file(
    path: Path,
    *,
    name: str,
    game: str,
    game_options: Mapping[str, Any],
    time_control: Mapping[str, Any],
    match: Mapping[str, Any],
    baselines: Sequence[str],
) -> str | None:
    """What is wrong with the final's file (`FILE:LINE: FIELD: ...` lines), or None: read in
    either format, then checked as the final it makes with stand-in students."""
    try:
        final = read_final_file(path)
    except FinalFileError as exc:
        return str(exc)
    problems = own_problems(final, game, baselines)
    if problems:
        return final.described(problems)
    config = final_config(
        final,
        name=name,
        game_options=game_options,
        time_control=time_control,
        match=match,
        concurrency=None,
        entrants=stand_ins(),
    )
    problems = config_problems(config, path.parent)
    return final.described(problems) if problems else None


def config_text(config: Mapping[str, Any], header: Sequence[str], notes: Mapping[str, str]) -> str:
    """The final's config as TOML: `header` comment lines first, its settings, its tables, then
    its players, each after its note (`notes`: by player name) as a comment."""
    lines = [f"# {printable(line)}" for line in header]
    tables = {k: v for k, v in config.items() if isinstance(v, dict)}
    values = {k: v for k, v in config.items() if k != "players" and k not in tables}
    lines += [f"{_key(k)} = {toml_value(v)}" for k, v in values.items()]
    for key, table in tables.items():
        lines += _table(key, table)
    for player in config.get("players", []):
        lines.append("")
        if note := notes.get(player.get("name", "")):
            lines.append(f"# {printable(note)}")  # a comment is one line of plain text
        lines.append("[[players]]")
        lines += [f"{_key(k)} = {toml_value(v)}" for k, v in player.items()]
    return "\n".join(lines) + "\n"


def _table(name: str, table: Mapping[str, Any]) -> list[str]:
    """`[name]` with its values, then its own tables as `[name.key]`."""
    inner = {k: v for k, v in table.items() if isinstance(v, dict) and v}
    lines = ["", f"[{name}]"]
    lines += [f"{_key(k)} = {toml_value(v)}" for k, v in table.items() if k not in inner]
    for key, value in inner.items():
        lines += _table(f"{name}.{_key(key)}", value)
    return lines


def _key(key: str) -> str:
    """A key as TOML writes it: bare when it can be, else quoted."""
    return key if _BARE.fullmatch(key) else json.dumps(key)


def template_text(
    game: str, *, seed: int = 1, games: int = 2, concurrency: int | None, baselines: Sequence[str]
) -> str:
    """The final's tournament file `arena new` writes: a round robin of the students and the
    `baselines` (built-in bots' names), in this referee's format, every key explained."""
    players = "".join(
        f'\n[[players]]  # a baseline\nname = "{BASELINE_PREFIX}{bot}"\n'
        f'command = "{BUILTIN_PREFIX}{bot} --seed {{seed}}"\n'
        for bot in baselines
    )
    shown = "# concurrency = 2" if concurrency is None else f"concurrency = {concurrency}"
    return TEMPLATE.format(
        game=json.dumps(game), seed=seed, games=games, concurrency=shown, players=players
    )


TEMPLATE = """\
# The final tournament: played at the deadline on each student's version pinned then, in the
# arena's final/ folder (docs/arena.md). The arena adds the students as players; list here only
# built-in bots, each named builtin-NAME: baselines, never graded (the grading scheme's
# [baselines] points are for beating them). Any other setting of a tournament config may be
# given (its format and the format's table, [openings], [time_control], [match]...);
# arena.toml's game options, [time_control] and [match] apply where this file says nothing.

game = {game}  # the arena's game
format = "round-robin"  # or "stages", "knockout", "swiss" (docs/formats.md)
seed = {seed}  # the same seed and players: the same schedule
games_per_pairing = {games}  # each pair's games, colours alternating
{concurrency}  # games at once (default: arena.toml's [schedule] concurrency)
{players}"""
