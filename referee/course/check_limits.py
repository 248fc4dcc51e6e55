"""The limits `referee check` plays under: a course's, when it is run in the course's folder,
else the time control `referee course new` writes, so that a bot that passes its check does not
then lose every course game on time.

The course is looked for in the folder `check` is run in and in each folder above it:

- `course.toml` (`referee course`): its `[time_control]` and `isolation`, exactly what
  `referee course check` plays under (`check_settings`);
- the course runner's own `tournament.toml` (with `[agents]`): its time control as `referee
  tournament run` reads it, `[settings] timeout` per move and no start-up allowance, and its
  `[referee]` table's time control, limits and isolation.

The first found is the course; one for another game than the one checked is not used, and the
check says so. The flags of `check` (`-t`, `--grace`, `--startup`, `--isolation`) override it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from protocols import UnknownGame, canonical_name
from referee.course.checkall import check_settings
from referee.course.scheme import COURSE_FILE, Course, CourseError
from referee.match.settings import MatchSettings, TimeSettings
from referee.tournament.course_file import is_course_file, read_course_file

RUNNER_FILE = "tournament.toml"  # the course runner's file, as its students have it
# The time control `referee course new` writes (a test holds its template to it): a check
# outside any course is never more lenient than a course's default.
COURSE_TIME_CONTROL = TimeSettings(move_timeout=2.0, grace=0.5, startup_allowance=5.0)


@dataclass(frozen=True)
class CheckLimits:
    """What a check plays under, and where it comes from (None: the defaults)."""

    settings: MatchSettings
    source: Path | None = None
    note: str | None = None  # a course that was found but not used, and why


def default_settings() -> MatchSettings:
    return MatchSettings(**COURSE_TIME_CONTROL.model_dump())


def course_limits(game: str, start: Path) -> CheckLimits:
    """The limits for checking a bot of `game` in the folder `start` (see the docstring)."""
    for folder in [start, *start.parents]:
        course = folder / COURSE_FILE
        if _is_file(course):
            return _from_course(game, course)
        runner = folder / RUNNER_FILE
        if _is_file(runner) and _is_runner_file(runner):
            return _from_runner_file(game, runner)
    return CheckLimits(default_settings())


def _is_file(path: Path) -> bool:
    """Whether `path` is a file; a folder the user may not look into holds no course of theirs."""
    try:
        return path.is_file()
    except OSError:
        return False


def _from_course(game: str, path: Path) -> CheckLimits:
    try:
        course = Course(path)
    except CourseError as exc:
        return _unused(path, f"it cannot be read ({exc})")
    if course.config.game != game:
        return _unused(path, f"its game is {course.config.game}")
    return CheckLimits(check_settings(course), path)


def _from_runner_file(game: str, path: Path) -> CheckLimits:
    """The time control and match settings of the course runner's file, read as `referee
    tournament run` reads them; its players are not checked (a student's copy may hold one)."""
    try:
        config = read_course_file(tomllib.loads(path.read_text(encoding="utf-8")), path).config
        settings = MatchSettings.model_validate(
            {**config.get("time_control", {}), **config.get("match", {})}
        )
        named = canonical_name(str(config.get("game", "")))
    except (
        OSError,
        UnicodeDecodeError,
        tomllib.TOMLDecodeError,
        ValidationError,
        TypeError,
    ) as exc:
        return _unused(path, f"it cannot be read ({' '.join(str(exc).split())})")
    except UnknownGame:
        return _unused(path, f"its game is {config.get('game')!r}, which is no game here")
    if named != game:
        return _unused(path, f"its game is {named}")
    return CheckLimits(settings, path)


def _unused(path: Path, why: str) -> CheckLimits:
    note = f"the course's {path} is not used: {why}; the default limits apply"
    return CheckLimits(default_settings(), None, note)


def _is_runner_file(path: Path) -> bool:
    """Whether `path` is the course runner's file (ours have `[[players]]`, not `[agents]`)."""
    try:
        return is_course_file(tomllib.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
