"""The course folder's two files, validated by pydantic: `course.toml` (the game, the time
control, where the submissions are, the grading scheme's file) and the grading scheme.

Every problem is reported as `FILE:LINE: FIELD: message`, like the tournament config. Relative
paths in `course.toml` are relative to its own folder. `course new` writes both files from the
commented texts below, so the defaults are documented where the instructor edits them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from protocols import UnknownGame, canonical_name, game_names
from referee.match.settings import TimeSettings
from referee.nofollow import check_file, check_folder, make_folder, write_file
from referee.players import BUILTIN_BOTS, as_builtin, builtin_refusal, builtins_playing
from referee.toml_config.reading import ConfigFileError, describe_problems, read_model
from referee.toml_config.writing import align_comments, toml_string

COURSE_FILE = "course.toml"
SCHEME_FILE = "grading.toml"
BASELINE_PREFIX = "builtin-"  # a baseline's player name in the tournament: builtin-random


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class BuildSettings(_Model):
    timeout: float = Field(120.0, gt=0, description="seconds one build may take")
    max_unpacked_mb: int = Field(50, ge=1, description="largest unpacked submission")
    max_files: int = Field(2000, ge=1, description="most files in one submission")


class CheckSettings(_Model):
    games_per_colour: int = Field(1, ge=1, le=20)
    opponent: str = "random"
    concurrency: int = Field(2, ge=1, le=64)


class TournamentSettings(_Model):
    games_per_pairing: int = Field(2, ge=1, le=1000)
    seed: int = 1
    concurrency: int | None = Field(None, ge=1)
    baselines: list[str] = Field(default_factory=lambda: ["random"])

    @field_validator("baselines")
    @classmethod
    def _known_baselines(cls, value: list[str]) -> list[str]:
        for name in value:
            if name not in BUILTIN_BOTS:
                raise ValueError(f"{name!r} is not a built-in bot ({', '.join(BUILTIN_BOTS)})")
        return value


class CourseConfig(_Model):
    name: str = Field(min_length=1)
    game: str
    game_options: dict[str, Any] = Field(default_factory=dict)
    submissions: Path = Path("submissions")
    work: Path = Path("work")
    grading: Path = Path(SCHEME_FILE)
    time_control: TimeSettings = Field(default_factory=TimeSettings)
    isolation: str = "auto"
    build: BuildSettings = Field(default_factory=BuildSettings)
    check: CheckSettings = Field(default_factory=CheckSettings)
    tournament: TournamentSettings = Field(default_factory=TournamentSettings)

    @field_validator("game")
    @classmethod
    def _canonical_game(cls, value: str) -> str:
        try:
            return canonical_name(value)
        except UnknownGame as exc:
            raise ValueError(str(exc)) from None

    def bots_problems(self) -> list[tuple[tuple[str | int, ...], str]]:
        """The check's opponent or a baseline that is a built-in bot that does not play the
        course's game (it would crash in every check and tournament game), where it is set."""
        named: list[tuple[tuple[str | int, ...], str]] = [
            (("check", "opponent"), self.check.opponent)
        ]
        named += [
            (("tournament", "baselines", i), b) for i, b in enumerate(self.tournament.baselines)
        ]
        return [
            (loc, refusal)
            for loc, name in named
            if (refusal := builtin_refusal(as_builtin(name), self.game))
        ]


class RankBand(_Model):
    up_to: float = Field(gt=0, le=1, description="the top fraction of the students")
    points: float


class GradeStep(_Model):
    min: float
    grade: str = Field(min_length=1)


class GradingScheme(_Model):
    clean: float = Field(0, description="points for finishing every game without a fault")
    per_fault: float = Field(0, description="points per fault (usually negative)")
    rank: list[RankBand] = Field(default_factory=list)
    baselines: dict[str, float] = Field(default_factory=dict)
    grades: list[GradeStep] = Field(default_factory=list)

    @field_validator("rank")
    @classmethod
    def _bands_in_order(cls, value: list[RankBand]) -> list[RankBand]:
        if [b.up_to for b in value] != sorted({b.up_to for b in value}):
            raise ValueError("bands must go from the smallest `up_to` to the largest, no repeats")
        return value


class CourseError(ConfigFileError):
    """A course file that cannot be used; one `FILE:LINE: FIELD: problem` per line."""


M = TypeVar("M", bound=BaseModel)


def load_model(path: Path, model: type[M]) -> M:
    loaded, text = read_model(path, model, what="it", error=CourseError)
    if isinstance(loaded, CourseConfig) and (problems := loaded.bots_problems()):
        raise CourseError(describe_problems(text, path, problems))
    return loaded


class Course:
    """A loaded course folder: its config and where its paths lead."""

    def __init__(self, path: Path) -> None:
        self.path = path if path.name.endswith(".toml") else path / COURSE_FILE
        self.config = load_model(self.path, CourseConfig)

    def _resolve(self, path: Path) -> Path:
        return path if path.is_absolute() else self.path.parent / path

    @property
    def submissions(self) -> Path:
        return self._resolve(self.config.submissions)

    @property
    def work(self) -> Path:
        return self._resolve(self.config.work)

    @property
    def scheme_path(self) -> Path:
        return self._resolve(self.config.grading)

    @property
    def tournament_config(self) -> Path:
        return self.work / "tournament.toml"


def load_scheme(path: Path) -> GradingScheme:
    return load_model(path, GradingScheme)


COURSE_TEXT = """\
# A course's tournament, for the `referee course` commands (see docs/course.md):
#   referee course collect      unpack, build and list every submission; writes work/tournament.toml
#   referee course check        every submission against a built-in bot: a report of who is ready
#   referee tournament run work/tournament.toml
#   referee course report       one HTML page per student, and an index for the staff
#   referee course grades       a CSV of points and grades from the grading scheme
# Relative paths are relative to this file's folder.

name = {name}
game = {game}               # {games}
submissions = "submissions"   # one entry per student: a folder, a .zip or .tar.gz, a git repository
work = "work"                 # where submissions are unpacked and built, and results go
grading = "{scheme}"          # the grading scheme used by `referee course grades`
isolation = "auto"            # how bots and builds are confined (see `referee doctor`)

[game_options]                # the game's options (defaults if empty)

[time_control]                # seconds
move_timeout = 2.0            # per move
grace = 0.5                   # tolerated on every move
startup_allowance = 5.0       # extra on a bot's first move (JVM start-up)

[build]
timeout = 120.0               # seconds one build (javac, gcc, make) may take
max_unpacked_mb = 50          # an archive that unpacks to more is refused
max_files = 2000              # and one with more files

[check]                       # `referee course check`
games_per_colour = 1          # games against the opponent in each colour
opponent = "random"           # a built-in bot that plays this game: {builtins}
concurrency = 2               # checks at once

[tournament]                  # the config `collect` writes
games_per_pairing = 2
seed = 1
baselines = ["random"]        # built-in bots that play in the tournament, as builtin-NAME
"""

SCHEME_TEXT = """\
# The grading scheme of `referee course grades`. A student's points are the sum of:
clean = 20.0          # finishing every tournament game without a fault of their bot
per_fault = -2.0      # each game lost by a fault (illegal move, timeout, crash, protocol)

# Rank bands: the students (baselines not counted) ranked by tournament points; a student whose
# rank is within the top `up_to` fraction gets that band's points (the first band that holds).
[[rank]]
up_to = 0.25
points = 40.0
[[rank]]
up_to = 0.5
points = 30.0
[[rank]]
up_to = 1.0
points = 20.0

# Beating a built-in baseline: more wins than losses against builtin-NAME in the tournament.
[baselines]
random = 20.0

# Grades: the first step (from the top) whose `min` the points reach. The lowest step also takes
# every total below its `min` (faults can make points negative): every student gets a grade.
[[grades]]
min = 80.0
grade = "A"
[[grades]]
min = 60.0
grade = "B"
[[grades]]
min = 40.0
grade = "C"
[[grades]]
min = 0.0             # and below
grade = "F"
"""


def _or_list(names: list[str]) -> str:
    """`a, b or c`."""
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else "".join(names)


def write_skeleton(folder: Path, name: str, game: str) -> list[Path]:
    """Write course.toml, the grading scheme and an empty submissions folder; return them.
    Never through a planted link (referee/nofollow.py), and all three are checked before any is
    written: a link planted at the last stops the command with nothing written."""
    course = folder / COURSE_FILE
    scheme = folder / SCHEME_FILE
    check_folder(folder / "submissions")
    check_file(course)
    check_file(scheme)
    make_folder(folder / "submissions")
    text = COURSE_TEXT.format(
        name=toml_string(name),
        game=toml_string(game),
        games=_or_list(game_names()),
        builtins=", ".join(builtins_playing(canonical_name(game))),
        scheme=SCHEME_FILE,
    )
    write_file(course, align_comments(text))
    write_file(scheme, align_comments(SCHEME_TEXT))
    return [course, scheme, folder / "submissions"]
