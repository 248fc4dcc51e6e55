"""Game records: pydantic models, an append-as-you-go JSON Lines writer, and a validating reader.

A record is one header line, one line per ply, and one result line. Each line is written and
flushed the moment it is known, so a referee crash mid-game leaves every played move on disk (a
record without a result line is an unfinished game). Reading validates every line with the same
models and names the file, line and field that are wrong.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, Self, TextIO

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from protocols.base import Reason, Side, why_ended

SCHEMA_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PlayerInfo(_Model):
    """Who played a colour."""

    name: str
    command: str
    cwd: str | None = None
    limits: dict[str, Any] | None = None  # this player's own limits, where they differ


class TimeControl(_Model):
    """The limits a game is played under (seconds); a game clock, if set, replaces the per-move
    limit. The one declaration of these fields: the match settings and a tournament's
    `[time_control]` table extend it, and a record's header holds it as is."""

    move_timeout: float = Field(5.0, gt=0, description="seconds per move")
    grace: float = Field(0.5, ge=0, description="extra seconds tolerated on every move")
    startup_allowance: float = Field(
        5.0, ge=0, description="extra seconds on each player's first move (interpreter start-up)"
    )
    # A game clock: each side has `clock_total` seconds for the whole game, plus
    # `clock_increment` after each of its moves (grace and start-up allowance as above).
    clock_total: float | None = Field(None, gt=0, description="seconds per side for the game")
    clock_increment: float = Field(0.0, ge=0, description="seconds added after each move")

    @classmethod
    def of(cls, model: TimeControl) -> Self:
        """Only this model's fields of `model` (a subclass: say, match settings), for a header."""
        return cls.model_validate({name: getattr(model, name) for name in cls.model_fields})


class Header(_Model):
    type: Literal["header"] = "header"
    schema_version: int = SCHEMA_VERSION
    game: str
    options: dict[str, Any]
    seed: int | None
    players: dict[Side, PlayerInfo]
    time_control: TimeControl
    started_at: datetime
    # Isolation level asked for, fair-CPU freezing and resource limits (referee/limits.py).
    confinement: dict[str, Any] | None = None


class Ply(_Model):
    type: Literal["ply"] = "ply"
    ply: int = Field(ge=1)
    side: Side
    received: str  # the line exactly as the bot wrote it (terminator removed)
    move: str  # canonical form, as forwarded to the opponent
    time_ms: float = Field(ge=0)  # wall time from our write to the answer
    cpu_ms: float | None = Field(default=None, ge=0)  # the bot's CPU time, where measured


class BotReport(_Model):
    """How a bot process ended, with the tail of its standard error."""

    exit_code: int | None
    killed: bool
    stderr_tail: str
    stderr_bytes: int
    isolation: str | None = None  # the isolation level this bot actually ran under


# Reasons that records written before games named their own endings used for those endings.
_LEGACY_ENDINGS = frozenset({"too-few-stones", "king-lost", "stone-count"})


class Result(_Model):
    type: Literal["result"] = "result"
    winner: Side | None
    reason: Reason
    # The game's own ending (a code of its `Game.endings`), exactly when reason is game-ending.
    ending: str | None = Field(None, min_length=1)
    detail: str
    loser_line: str | None = None  # the offending line, for bot faults
    plies: int
    void: bool = False
    finished_at: datetime
    bots: dict[Side, BotReport] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _read_legacy_ending(cls, data: Any) -> Any:
        """An older record's reason `king-lost` reads as reason game-ending, ending king-lost."""
        if isinstance(data, dict) and data.get("reason") in _LEGACY_ENDINGS:
            return {**data, "reason": Reason.GAME_ENDING.value, "ending": data["reason"]}
        return data

    @model_validator(mode="after")
    def _ending_goes_with_game_ending(self) -> Result:
        if (self.reason is Reason.GAME_ENDING) != (self.ending is not None):
            raise ValueError("an ending is given exactly when the reason is game-ending")
        return self

    @property
    def why(self) -> str:
        """What ended the game as people read it ("by king-lost", "by timeout")."""
        return why_ended(self.reason, self.ending)


RecordLine = Annotated[Header | Ply | Result, Field(discriminator="type")]
_LINE_ADAPTER: TypeAdapter[Header | Ply | Result] = TypeAdapter(RecordLine)


class GameRecord(_Model):
    """A whole record as read back: `result` is None for a game that never finished."""

    header: Header
    plies: list[Ply]
    result: Result | None


class RecordError(ValueError):
    """A record file that is not a valid record; the message names the file, line and field."""


def utc_now() -> datetime:
    return datetime.now(UTC)


class RecordWriter:
    """Appends record lines to a file, flushing each one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO | None = path.open("w", encoding="utf-8")

    def write(self, line: Header | Ply | Result) -> None:
        if self._file is None:
            raise RuntimeError(f"record {self.path} is already closed")
        self._file.write(line.model_dump_json() + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_record(path: Path) -> GameRecord:
    """Read and validate a record file; raise `RecordError` naming the line and field."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read record: {exc}") from None
    header: Header | None = None
    plies: list[Ply] = []
    result: Result | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        line = _parse_line(raw, where)
        if result is not None:
            raise RecordError(f"{where}: line after the result line")
        if isinstance(line, Header):
            if header is not None:
                raise RecordError(f"{where}: a second header line")
            header = line
        elif header is None:
            raise RecordError(f"{where}: the first line must be the header")
        elif isinstance(line, Ply):
            if line.ply != len(plies) + 1:
                raise RecordError(f"{where}: ply: expected {len(plies) + 1}, found {line.ply}")
            plies.append(line)
        else:
            result = line
    if header is None:
        raise RecordError(f"{path}: empty record (no header line)")
    return GameRecord(header=header, plies=plies, result=result)


def _parse_line(raw: str, where: str) -> Header | Ply | Result:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{where}: not JSON: {exc.msg} (column {exc.colno})") from None
    try:
        return _LINE_ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(line)"
        raise RecordError(f"{where}: field {field}: {first['msg']}") from None


def describe_validation_error(exc: ValidationError, where: str) -> str:
    """One line per problem: `where: field: message`, without pydantic's links and noise."""
    lines = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "(value)"
        lines.append(f"{where}: {field}: {error['msg']}")
    return "\n".join(lines)
