"""A student's pre-flight (`referee check`): what the command line asked for (a `CheckRequest`),
refused before any game starts when it cannot be run (`CheckRefused`), else prepared once (the
course's limits with the flags on top, the host chosen, the records' folder made) and played
into a `CheckResult`.

Nothing here prints: the command says the note and the refusals, shows the progress and renders
the report (referee/course/check_view.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from pydantic import ValidationError

from protocols import UnknownGame, canonical_name
from referee.course.check import (
    CheckedGame,
    CheckReport,
    check_players,
    new_record_dir,
    run_check,
)
from referee.course.check_limits import course_limits
from referee.isolation.levels import IsolationUnavailable
from referee.match.host import Host, choose_host
from referee.match.settings import MatchSettings
from referee.nofollow import PlantedLink, make_folder
from referee.players import as_builtin, builtin_refusal, unreachable_player
from referee.records import describe_validation_error

PREFIX = "referee check: "


@dataclass(frozen=True)
class CheckRequest:
    """One check as the command line asks for it; None: the course's (or the default) value."""

    game: str  # as typed: a name or an alias
    command: str
    games_per_colour: int
    opponent: str
    seed: int
    cwd: Path  # where the bot runs, and where the course's limits are looked for
    records: Path | None = None  # None: a new folder in referee-games/
    timeout: float | None = None
    grace: float | None = None
    startup: float | None = None
    isolation: str | None = None


@dataclass(frozen=True)
class CheckRefused:
    """Why no game of the check can start: the whole message, and the course's note (said
    before it) when the limits were read. `bad_flag`: a flag was wrong (said in red)."""

    message: str
    note: str | None = None
    bad_flag: bool = False


@dataclass(frozen=True)
class PreparedCheck:
    """A check that nothing stops any more: the game, the settings, the host chosen once for
    every game, the records' folder, and where the limits came from."""

    request: CheckRequest
    game: str  # canonical
    settings: MatchSettings
    host: Host
    record_dir: Path
    limits_source: Path | None  # the course's file; None: a course's defaults
    note: str | None  # what the course's limits need said, if anything


@dataclass(frozen=True)
class CheckResult:
    """How the check went: its report, or None when it was interrupted (the finished games'
    records are in `record_dir`)."""

    report: CheckReport | None
    record_dir: Path


def prepare_check(request: CheckRequest) -> PreparedCheck | CheckRefused:
    """The check `request` asks for, ready to play, or why it cannot be played."""
    try:
        game = canonical_name(request.game)
        if request.games_per_colour < 1:
            raise ValueError("--games must be at least 1")
        if refusal := builtin_refusal(as_builtin(request.opponent), game):
            raise ValueError(f"--opponent: {refusal}")
        limits = course_limits(game, request.cwd)
        settings = with_flags(limits.settings, request)
        host = choose_host(settings.isolation)  # once, for every game of the check
    except ValidationError as exc:  # the flags' types checked the times: the rest, in its words
        return CheckRefused(describe_validation_error(exc, PREFIX + "invalid setting"))
    except (UnknownGame, ValueError, IsolationUnavailable) as exc:
        return CheckRefused(f"{PREFIX}{exc}", bad_flag=True)
    note = limits.note
    # Both bots, the built-in opponent too (the referee's own Python), must be reachable by
    # their users here: else no game could be played, and none is.
    players = check_players(game, request.command, request.opponent, request.seed, request.cwd)
    if refused := unreachable_player(players, host.isolation):  # the path and the fix
        return CheckRefused(PREFIX + refused, note)
    try:
        record_dir = records_folder(request.records, game)
    except PlantedLink as exc:
        return CheckRefused(f"{PREFIX}cannot write the records: {exc}", note)
    except OSError as exc:
        return CheckRefused(f"{PREFIX}cannot create the records folder: {exc}", note)
    return PreparedCheck(request, game, settings, host, record_dir, limits.source, note)


def check_bot(
    check: PreparedCheck, on_game: Callable[[CheckedGame], None] | None = None
) -> CheckResult:
    """Play the check's games in this process, each told to `on_game` as it ends. Ctrl-C ends
    it as interrupted."""
    request = check.request
    try:
        report = trio.run(
            lambda: run_check(
                check.game,
                request.command,
                check.settings,
                check.record_dir,
                games_per_colour=request.games_per_colour,
                opponent=request.opponent,
                seed=request.seed,
                on_game=on_game,
                cwd=request.cwd,
                host=check.host,
            )
        )
    except KeyboardInterrupt:
        return CheckResult(None, check.record_dir)
    return CheckResult(report, check.record_dir)


def records_folder(asked: Path | None, game: str) -> Path:
    """The folder of this check's records: `--records` (made where missing), else a new one in
    `referee-games/`; reached without following a planted link (`PlantedLink`)."""
    if asked is None:
        return new_record_dir(game)
    make_folder(asked)
    return asked


def with_flags(settings: MatchSettings, request: CheckRequest) -> MatchSettings:
    """The course's (or the default) settings, with what the command line says instead."""
    update: dict[str, Any] = {}
    if request.timeout is not None:  # a limit per move, as asked, in place of a game clock
        update.update(move_timeout=request.timeout, clock_total=None, clock_increment=0.0)
    if request.grace is not None:
        update["grace"] = request.grace
    if request.startup is not None:
        update["startup_allowance"] = request.startup
    if request.isolation is not None:
        update["isolation"] = settings.isolation.model_copy(update={"level": request.isolation})
    # Validated again as a whole: a flag's value is checked as the config's would be.
    return MatchSettings.model_validate({**settings.model_dump(), **update})
