"""Reading a tournament's config file: the TOML (or the course runner's file, `course_file.py`),
the models of `config.py`, then the checks that one field cannot make alone (player names, the
game and its options, the match settings, the formats' own checks in `formats/checks.py`) and
a knockout's seeds read from an earlier tournament's ratings.

Every problem is reported as `FILE:LINE: FIELD: message`. The `[cluster] address` is parsed by
the cluster package, above this one: the caller passes its parser (`referee.app.config` does).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from protocols import UnknownGame, get_game
from referee.isolation.confinement import public_directories
from referee.openings import Book, OpeningError, load_book
from referee.players import BUILTIN_PREFIX, POSITION, builtin_refusal
from referee.printable import printable
from referee.toml_config.lines import Loc
from referee.toml_config.reading import (
    describe_problems,
    model_problems,
    parse_toml,
    read_text,
    validation_message,
)
from referee.tournament.bot_folders import outside_words
from referee.tournament.config import (
    ADDRESS_CHECK,
    COLLECTED_MARK,
    ConfigError,
    LoadedConfig,
    TournamentConfig,
)
from referee.tournament.course_file import CourseFile, is_course_file, read_course_file
from referee.tournament.formats.checks import check_format
from referee.tournament.rating import rate_results
from referee.tournament.report import finished_results
from referee.tournament.store import StoreError, open_view

# Parses a cluster address; its ValueError says what is wrong.
AddressCheck = Callable[[str], object]


def read_config(
    path: str | os.PathLike[str], *, check_address: AddressCheck | None
) -> LoadedConfig:
    """Read and validate a tournament config; raise `ConfigError` naming file, line and field.
    `check_address` parses a `[cluster] address` (None: it is not checked)."""
    path = Path(path)  # a str is as good as a Path
    text = read_text(path, what="the config", error=ConfigError)
    return read_config_text(text, path, check_address=check_address)


def read_config_text(text: str, path: Path, *, check_address: AddressCheck | None) -> LoadedConfig:
    """`read_config` of a config's text, which the file at `path` holds (or will hold)."""
    raw = parse_toml(text, path, error=ConfigError)
    course = None
    if is_course_file(raw):  # the course runner's tournament file (course_file.py)
        course = read_course_file(raw, path)
        if course.problems:
            raise ConfigError(describe_problems(text, path, course.problems))
        raw = course.config
    try:
        config = TournamentConfig.model_validate(raw, context={ADDRESS_CHECK: check_address})
    except ValidationError as exc:
        problems = model_problems(exc, TournamentConfig)
        raise ConfigError(describe_problems(text, path, _in_file(course, problems))) from None
    return checked_config(config, text, path, check_address=check_address, course=course)


def checked_config(
    config: TournamentConfig,
    text: str,
    path: Path,
    *,
    check_address: AddressCheck | None,
    course: CourseFile | None = None,
) -> LoadedConfig:
    """A validated config (read from `text`, or made in code and written as `text`: a
    match's), kept at `path`, with the checks that one field cannot make alone; `ConfigError`
    naming file, line and field of every problem."""
    problems = check_config(config) + check_commands(config, path.parent)
    problems += check_openings(config, path.parent)
    if not problems:
        config, problems = resolve_seeds(config, path.parent, check_address)
    if problems:
        raise ConfigError(describe_problems(text, path, _in_file(course, problems)))
    return LoadedConfig(config, path, collected=text.startswith(COLLECTED_MARK))


def _in_file(course: CourseFile | None, problems: list[tuple[Loc, str]]) -> list[tuple[Loc, str]]:
    """Problems at the fields of the file as written (a course file's own names)."""
    if course is None:
        return problems
    return [(course.where(loc), message) for loc, message in problems]


def check_config(config: TournamentConfig) -> list[tuple[Loc, str]]:
    """The checks one field cannot make alone: names, the game and its options."""
    problems: list[tuple[Loc, str]] = []
    seen: set[str] = set()
    for i, player in enumerate(config.players):
        if player.name in seen:
            problems.append((("players", i, "name"), f"duplicate player name {player.name!r}"))
        seen.add(player.name)
        if refusal := builtin_refusal(player.command, config.game):
            problems.append((("players", i, "command"), refusal))
    problems += _check_format(config)
    problems += _check_game(config)
    return problems


def check_commands(config: TournamentConfig, base_dir: Path) -> list[tuple[Loc, str]]:
    """A player's command names only what lies in its folder (`cwd`), the system's folders
    and its interpreter (on the PATH, or installed anywhere: a virtualenv's Python), unless
    the config says it is `trusted`: a command from a submission (run.txt, `course collect`,
    `tournament new`) must not name another player's folder, the tournament's store or
    anything else of the machine that the bot would then be shown."""
    problems: list[tuple[Loc, str]] = []
    reads = public_directories()  # what every bot reads anyway: found once for all players
    for i, player in enumerate(config.players):
        if player.trusted or player.command.strip().startswith(BUILTIN_PREFIX):
            continue
        folder = Path(os.path.normpath((base_dir / (player.cwd or ".")).absolute()))
        if words := outside_words(player.command, folder, installed=True, reads=reads):
            problems.append(
                (
                    ("players", i, "command"),
                    f"{printable(player.name)}'s command names "
                    f"{', '.join(printable(w) for w in words)}, outside its folder {folder}: "
                    "a player's command may name only what lies in its folder (cwd), the "
                    "system's folders and its interpreter. If you wrote this command yourself "
                    "and it must name more, add `trusted = true` to the player's entry",
                )
            )
    return problems


def check_openings(config: TournamentConfig, base_dir: Path) -> list[tuple[Loc, str]]:
    """`[openings]`: a book that reads, one way to choose openings, and every bot able to start
    from one (it declared the `position` extension, or it is a built-in bot): a game is never
    played from the start instead."""
    settings = config.openings
    if not settings.enabled:
        return []
    problems: list[tuple[Loc, str]] = []
    if settings.plies and settings.book is not None:
        problems.append((("openings", "plies"), "give either plies or a book, not both"))
    if settings.book is not None:
        path = settings.book if settings.book.is_absolute() else base_dir / settings.book
        try:
            book = load_book(path, config.game, config.game_options)
        except (OSError, OpeningError) as exc:
            problems.append((("openings", "book"), str(exc)))
        else:
            if settings.order == "sequential":
                problems += _check_start(book, settings.start)
    for i, player in enumerate(config.players):
        builtin = player.command.strip().startswith(BUILTIN_PREFIX)
        if POSITION not in player.capabilities and not builtin:
            problems.append(
                (
                    ("players", i, "capabilities"),
                    f"{player.name} has not declared the {POSITION!r} extension, so it cannot "
                    f'start from an opening: add capabilities = ["{POSITION}"] to its entry if '
                    "it reads `position K` and the opening's moves after its colour "
                    "(docs/protocol.md), or remove [openings]",
                )
            )
    return problems


def _check_start(book: Book, start: int) -> list[tuple[Loc, str]]:
    """`start`, a line of the book's file: one with an opening on it or after it."""
    try:
        book.first_from_line(start)
    except OpeningError as exc:
        return [(("openings", "start"), str(exc))]
    return []


def _check_format(config: TournamentConfig) -> list[tuple[Loc, str]]:
    problems: list[tuple[Loc, str]] = []
    names = set(config.player_names)
    for i, challenger in enumerate(config.challengers):
        if challenger not in names:
            problems.append((("challengers", i), f"{challenger!r} is not one of the players"))
    if config.format == "gauntlet":
        if not config.challengers:
            problems.append((("challengers",), "a gauntlet needs at least one challenger"))
        elif len(set(config.challengers)) >= len(names):
            problems.append((("challengers",), "a gauntlet needs players besides the challengers"))
    elif config.challengers:
        problems.append((("challengers",), "challengers are only used by format = 'gauntlet'"))
    return problems + check_format(config)


def _check_game(config: TournamentConfig) -> list[tuple[Loc, str]]:
    return check_game(config.game, config.game_options)


def check_game(name: str, options: dict[str, Any]) -> list[tuple[Loc, str]]:
    """`game` and `[game_options]` of a config (a tournament's, an arena's): a known game, and
    options its model accepts."""
    try:
        game = get_game(name)
    except UnknownGame as exc:
        return [(("game",), str(exc))]
    try:
        game.parse_options(options)
    except ValidationError as exc:
        model = game.options_model
        return [(("game_options", *e["loc"]), validation_message(e, model)) for e in exc.errors()]
    return []


def resolve_seeds(
    config: TournamentConfig, base_dir: Path, check_address: AddressCheck | None
) -> tuple[TournamentConfig, list[tuple[Loc, str]]]:
    """A knockout seeded by ratings gets its `seeds` from the earlier tournament's Elo, best
    first (players it did not rate after, in config order); other configs are returned as is."""
    settings = config.knockout
    if config.format != "knockout" or settings.seeding != "ratings" or settings.seeds:
        return config, []
    assert settings.ratings_from is not None
    source = settings.ratings_from
    source = source if source.is_absolute() else base_dir / source
    try:
        elo = _earlier_elo(source, config.player_names, check_address)
    except (OSError, ValueError, StoreError) as exc:  # ValueError: its config's ConfigError
        return config, [(("knockout", "ratings_from"), f"cannot read its ratings: {exc}")]
    order = sorted(
        config.player_names,
        key=lambda n: (elo.get(n) is None, -(elo.get(n) or 0.0), config.player_names.index(n)),
    )
    knockout = settings.model_copy(update={"seeds": order})
    return config.model_copy(update={"knockout": knockout}), []


def _earlier_elo(
    source: Path, players: list[str], check_address: AddressCheck | None
) -> dict[str, float | None]:
    if source.is_dir():
        directory = source
    else:
        directory = read_config(source, check_address=check_address).directory
    view = open_view(directory)
    try:
        earlier = view.players()
        info = view.info()
        ratings = rate_results(earlier, finished_results(view.games()), info.game)
    finally:
        view.close()
    by_name = ratings.by_name()
    return {name: by_name[name].rating if name in by_name else None for name in players}
