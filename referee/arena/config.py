"""`arena.toml`: the arena's settings as pydantic models (frozen, unknown keys refused), read with
every problem reported as `FILE:LINE: FIELD: message`, and the commented text `arena new` writes.

The game, its options, `[time_control]` and `[match]` are a tournament's (the same models and
checks: `referee.tournament.config_file`), `[build]` and `[check]` a course's, and `[grades]`
names a course's grading scheme (`referee.course.scheme`), so that a course moves to an arena
without translating anything. Relative paths are relative to the file's own folder.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from protocols import UnknownGame, canonical_name
from referee.arena.final_file import check_final_file
from referee.course.scheme import BuildSettings, CheckSettings, CourseError, load_scheme
from referee.match.settings import MatchConfig, TimeSettings
from referee.toml_config.lines import Loc
from referee.toml_config.reading import ConfigFileError, describe_problems, read_model
from referee.toml_config.writing import align_comments
from referee.tournament.config_file import check_game
from referee.web import DEFAULT_HOST, DEFAULT_PORT

CONFIG_NAME = "arena.toml"
Visibility = Literal["hidden", "participants", "public"]


class ArenaConfigError(ConfigFileError):
    """An arena.toml that cannot be used; one `FILE:LINE: FIELD: problem` per line."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RosterSettings(_Model):
    file: Path = Path("roster.csv")  # username,name,role[,email]: what `arena accounts` reads


class AccountSettings(_Model):
    invite_days: float = Field(7.0, gt=0, le=365, description="an invite link's life")
    session_hours: float = Field(12.0, gt=0, le=24 * 90, description="a login's life")
    min_password_length: int = Field(10, ge=8, le=128)
    # Failed logins allowed per window, per account and per client address; then refused
    # until the window has passed over them.
    login_attempts: int = Field(5, ge=1, le=1000)
    address_attempts: int = Field(30, ge=1, le=100_000)
    window_minutes: float = Field(15.0, gt=0, le=24 * 60)


class ServerSettings(_Model):
    host: str = Field(DEFAULT_HOST, min_length=1)  # the address to listen on
    port: int = Field(DEFAULT_PORT, ge=0, le=65535)
    # The address people open (in invite links; https:// makes the cookies Secure). Default:
    # http://HOST:PORT.
    url: str | None = None
    allowed_hosts: list[str] = Field(default_factory=list)  # more Host names it answers to
    # Behind one reverse proxy: the client's address is the one X-Forwarded-For adds last.
    behind_proxy: bool = False

    @field_validator("url")
    @classmethod
    def _origin_only(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("give http://HOST[:PORT] or https://HOST[:PORT]")
        if parts.path.strip("/") or parts.query or parts.fragment or parts.username:
            raise ValueError("give the site's address alone, without a path or a query")
        return f"{parts.scheme}://{parts.netloc}"


class ScheduleSettings(_Model):
    concurrency: int | None = Field(None, ge=1, le=1024, description="games at once")
    placement_games: int = Field(6, ge=0, le=1000)
    min_meetings: int = Field(2, ge=0, le=1000)
    # A meeting is two games (both colours): a version needs room for both in its hour.
    max_games_per_version_per_hour: int = Field(240, ge=2, le=100_000)
    openings: Literal["auto", "none"] = "auto"
    opening_plies: int = Field(4, ge=1, le=200, description="a random opening's length")


class UploadSettings(_Model):
    max_bytes: int = Field(5_000_000, ge=1024, le=2_000_000_000)
    per_hour: int = Field(10, ge=1, le=10_000, description="uploads per account per hour")


class VisibilitySettings(_Model):
    leaderboard: Visibility = "participants"
    games: Visibility = "participants"  # others' games (never others' code or stderr)


class RatingSettings(_Model):
    min_games: int = Field(10, ge=0, le=100_000, description="fewer: provisional, not ranked")


class DeadlineSettings(_Model):
    at: datetime | None = None

    @field_validator("at")
    @classmethod
    def _with_zone(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.utcoffset() is None:
            raise ValueError("give the time zone too, e.g. 2026-12-15T23:59:00-05:00")
        return value


class FinalSettings(_Model):
    tournament: Path = Path("tournament.toml")  # the course's tournament file


class GradeSettings(_Model):
    scheme: Path = Path("grading.toml")  # the course's grading scheme


class ArenaConfig(MatchConfig):
    # [time_control] and [match] (MatchConfig), as a tournament's: `match_settings()`.
    name: str = Field(min_length=1, max_length=200)
    game: str
    game_options: dict[str, Any] = Field(default_factory=dict)
    roster: RosterSettings = Field(default_factory=RosterSettings)
    accounts: AccountSettings = Field(default_factory=AccountSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    schedule: ScheduleSettings = Field(default_factory=ScheduleSettings)
    uploads: UploadSettings = Field(default_factory=UploadSettings)
    build: BuildSettings = Field(default_factory=BuildSettings)
    check: CheckSettings = Field(default_factory=CheckSettings)
    visibility: VisibilitySettings = Field(default_factory=VisibilitySettings)
    ratings: RatingSettings = Field(default_factory=RatingSettings)
    deadline: DeadlineSettings = Field(default_factory=DeadlineSettings)
    final: FinalSettings = Field(default_factory=FinalSettings)
    grades: GradeSettings = Field(default_factory=GradeSettings)

    @field_validator("game")
    @classmethod
    def _canonical_game(cls, value: str) -> str:
        # An unknown name is kept as written; `check_game` reports it with its line.
        try:
            return canonical_name(value)
        except UnknownGame:
            return value

    def public_url(self) -> str:
        """The address people open: `[server] url`, else http://HOST:PORT."""
        if self.server.url is not None:
            return self.server.url
        host = self.server.host
        return (
            f"http://[{host}]:{self.server.port}"
            if ":" in host
            else (f"http://{host}:{self.server.port}")
        )


def read_config(path: Path) -> ArenaConfig:
    """Read and check `path` (an arena.toml); `ArenaConfigError` names file, line and field."""
    config, text = read_model(path, ArenaConfig, what="the arena's config", error=ArenaConfigError)
    problems = check_game(config.game, config.game_options)
    problems += _check_scheme(config, path.parent)
    if not problems:  # a final of an unknown game, or with broken settings, says it again
        problems += _check_final(config, path.parent)
    if problems:
        raise ArenaConfigError(describe_problems(text, path, problems))
    return config


def _check_scheme(config: ArenaConfig, base: Path) -> list[tuple[Loc, str]]:
    """The grading scheme is read now, not at the deadline: a broken one is found in week 1."""
    scheme = resolve(base, config.grades.scheme)
    if not scheme.is_file():
        return [(("grades", "scheme"), f"no such file: {scheme}")]
    try:
        load_scheme(scheme)
    except CourseError as exc:
        return [(("grades", "scheme"), f"the scheme is not valid:\n{exc}")]
    return []


def _check_final(config: ArenaConfig, base: Path) -> list[tuple[Loc, str]]:
    """The final's tournament file is checked now too: it exists, reads, plays the arena's
    game, and makes a tournament once the students are added (`final_file.py`)."""
    path = resolve(base, config.final.tournament)
    if not path.is_file():
        return [(("final", "tournament"), f"no such file: {path}")]
    try:
        baselines = list(load_scheme(resolve(base, config.grades.scheme)).baselines)
    except CourseError:
        baselines = []  # the scheme's own problem is reported
    problem = check_final_file(
        path,
        name=config.name,
        game=config.game,
        game_options=config.game_options,
        time_control=config.time_control.model_dump(exclude_none=True),
        match=config.match_entries(),
        baselines=baselines,
    )
    if problem is None:
        return []
    return [(("final", "tournament"), f"the final's tournament file is not valid:\n{problem}")]


def resolve(base: Path, path: Path) -> Path:
    """A path of the config: relative ones are from the config's folder."""
    return path if path.is_absolute() else base / path


def toml_value(value: Any) -> str:
    """A value as TOML writes it (JSON's strings, numbers and arrays are TOML's)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        inner = ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Path):
        return json.dumps(str(value))
    return json.dumps(value)


def config_text(
    name: str,
    game: str,
    *,
    game_options: dict[str, Any] | None = None,
    time_control: TimeSettings | None = None,
    isolation: str = "auto",
    build: BuildSettings | None = None,
    check: CheckSettings | None = None,
) -> str:
    """The commented arena.toml `arena new` writes: every key with its default (or the
    course's value) and what it does."""
    time = time_control or TimeSettings()
    build, check = build or BuildSettings(), check or CheckSettings()
    options = "".join(f"{k} = {toml_value(v)}\n" for k, v in (game_options or {}).items())
    clock = (
        f"clock_total = {toml_value(time.clock_total)}"
        if time.clock_total is not None
        else "# clock_total = 300.0"
    )
    values = {
        "name": toml_value(name),
        "game": toml_value(game),
        "options": options,
        "move_timeout": toml_value(time.move_timeout),
        "grace": toml_value(time.grace),
        "startup": toml_value(time.startup_allowance),
        "clock": clock,
        "increment": toml_value(time.clock_increment),
        "overload": toml_value(time.overload_threshold),
        "isolation": toml_value(isolation),
        "host": toml_value(DEFAULT_HOST),
        "port": DEFAULT_PORT,
        **{f"build_{k}": toml_value(v) for k, v in build.model_dump().items()},
        **{f"check_{k}": toml_value(v) for k, v in check.model_dump().items()},
    }
    return align_comments(TEMPLATE.format(**values))


TEMPLATE = """\
# An arena: the server a course runs all term (docs/arena.md).
#   referee arena accounts DIR roster.csv   accounts from the roster (each invite printed once)
#   referee arena serve DIR                 the web pages and the ladder, until Ctrl-C
# Relative paths are relative to this file's folder.

name = {name}
game = {game}  # any game `referee games` lists

[game_options]  # the game's options (defaults if empty)
{options}
[time_control]  # seconds
move_timeout = {move_timeout}  # per move
grace = {grace}  # tolerated on every move
startup_allowance = {startup}  # extra on a bot's first move (interpreter, JVM start-up)
{clock}  # a game clock per side instead of the per-move limit
clock_increment = {increment}  # added to a game clock after each move
overload_threshold = {overload}  # a timeout in referee lag above this is void, not lost

[match]  # other settings of every game
exit_grace = 1.0  # seconds a bot may take to exit after END
max_line_bytes = 4096  # longest line a bot may send

[match.isolation]  # how untrusted bots are contained (see `referee doctor`)
level = {isolation}  # auto: the strongest this machine offers

[match.limits]  # per bot
memory_mb = 1024  # the bot's whole process tree
processes = 512  # processes and threads
file_size_mb = 64  # largest file it may write
tmp_mb = 64  # all it may write in its private /tmp and HOME

[roster]
file = "roster.csv"  # username,name,role (student or staff)[,email]

[accounts]
invite_days = 7.0  # an invite link works this long, once
session_hours = 12.0  # a login lasts this long
min_password_length = 10
login_attempts = 5  # failed logins per account per window (then refused)
address_attempts = 30  # failed logins per client address per window
window_minutes = 15.0

[server]  # `referee arena serve` (--host and --port override these two)
host = {host}  # the address to listen on (0.0.0.0: every interface)
port = {port}
# url = "https://arena.example.edu"  # the address people open (invite links; https: Secure
                                     # cookies); default http://HOST:PORT
allowed_hosts = []  # more host names people reach it by (besides url's and host's)
behind_proxy = false  # true: behind one reverse proxy (X-Forwarded-For, -Proto)

[schedule]
# concurrency = 2  # games at once (default: the number of cores)
placement_games = 6  # a new version's first games, against a spread of opponents
min_meetings = 2  # each pair of active versions meets this often by the deadline
# a version's games an hour, to size with docs/arena.md ("Sizing the hourly cap")
max_games_per_version_per_hour = 240
openings = "auto"  # or "none"; auto: openings where both bots declared `position`
opening_plies = 4  # the length of those openings (random, seeded by the game)

[uploads]
max_bytes = 5_000_000  # largest upload (a file or an archive)
per_hour = 10  # uploads per account per hour

[build]  # each version is built in the sandbox
timeout = {build_timeout}  # seconds one build (javac, gcc, make) may take
max_unpacked_mb = {build_max_unpacked_mb}  # an archive that unpacks to more is refused
max_files = {build_max_files}  # and one with more files

[check]  # each version plays a built-in bot before it joins the ladder
games_per_colour = {check_games_per_colour}
opponent = {check_opponent}  # a built-in bot: random, greedy, search, perfect
concurrency = {check_concurrency}  # checks at once

[visibility]  # "hidden" (staff only), "participants" (signed in) or "public"
leaderboard = "participants"
games = "participants"  # others' games (never their code, logs or stderr)

[ratings]
min_games = 10  # fewer games: provisional, not ranked

[deadline]
# at = 2026-12-15T23:59:00-05:00  # uploads close (later ones are kept, never played)

[final]  # played at the deadline on the students' pinned versions
tournament = "tournament.toml"  # its tournament file (format, seed, baselines...)

[grades]
scheme = "grading.toml"  # the course's grading scheme
"""
