"""Game records: pydantic models, an append-as-you-go JSON Lines writer, and a validating reader.

A record is one header line, one line per ply, and one result line. Each line is written and
flushed the moment it is known, so a referee crash mid-game leaves every played move on disk (a
record without a result line is an unfinished game). Reading validates every line with the same
models and names the file, line and field that are wrong.

Every line also carries `chain`, a hash chained to the line before it (see "the hash chain"
below), so that an edit of any line, or lines removed, inserted or reordered, is found on
reading. Records written before the chain have none and still read.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple, Self, TextIO

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from protocols.base import Outcome, Reason, Side, why_ended
from referee.nofollow import create_file

SCHEMA_VERSION = 2  # 2: every line carries its `chain`


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PlayerInfo(_Model):
    """Who played a colour."""

    name: str
    command: str
    cwd: str | None = None
    limits: dict[str, Any] | None = None  # this player's own limits, where they differ
    # What the bot was made of when it played: its command's files and folder as
    # referee/bot_content.py hashes them (a tournament or match), or the SHA-256 of its folder
    # as shipped to the cluster worker that played the game (referee/cluster/shipping.py).
    # None in records written before it was kept, and for games played outside a tournament.
    content_hash: str | None = None


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
    # The moves the game started from (canonical lines, played before ply 1), if any; records
    # without it started from the start position.
    opening: list[str] | None = None


class Ply(_Model):
    type: Literal["ply"] = "ply"
    ply: int = Field(ge=1)
    side: Side
    received: str  # the line exactly as the bot wrote it (terminator removed)
    move: str  # canonical form, as forwarded to the opponent
    time_ms: float = Field(ge=0)  # wall time from our write to the answer
    # The bot's CPU time since its previous answer (since its start, for its first), where measured.
    cpu_ms: float | None = Field(default=None, ge=0)


class BotReport(_Model):
    """How a bot process ended, with the tail of its standard error."""

    exit_code: int | None
    killed: bool
    stderr_tail: str
    stderr_bytes: int
    isolation: str | None = None  # the isolation level this bot actually ran under
    # Why it ran below the level asked for (only where the run allowed that), naming the cause.
    isolation_note: str | None = None
    # Lines it wrote when it was not asked (the first few): an out-of-turn line, or, after the
    # move that ended the game, trailing output ("Game over!") that is kept but never judged.
    unasked: list[str] = Field(default_factory=list)


# Reasons that records written before games named their own endings used for those endings.
_LEGACY_ENDINGS = frozenset({"too-few-stones", "king-lost", "stone-count"})


# A finished game's result in one word, as every view, event and report names it.
ResultLabel = Literal["blue", "orange", "draw", "double-forfeit", "void"]
# How people read "double-forfeit": no winner, and both lose (neither bot started playing).
DOUBLE_FORFEIT = "double forfeit"


def result_label(winner: Side | None, reason: Reason) -> ResultLabel:
    """The winner's colour; `void` for a game the referee or the machine failed; for a game
    without a winner ended by a bot's fault (neither bot started playing) `double-forfeit`,
    which is a loss for both and never a draw; else `draw`."""
    if winner is not None:
        return "blue" if winner is Side.BLUE else "orange"
    if reason.voids_game:
        return "void"
    return "double-forfeit" if reason.is_bot_fault else "draw"


class Result(_Model):
    type: Literal["result"] = "result"
    winner: Side | None
    reason: Reason
    # The game's own ending (a code of its `Game.endings`), exactly when reason is game-ending.
    ending: str | None = Field(None, min_length=1)
    detail: str
    loser_line: str | None = None  # the offending line, for bot faults
    plies: int
    # Checked against the winner and the reason (default included: it must follow the reason).
    void: bool = Field(False, validate_default=True)
    finished_at: datetime
    bots: dict[Side, BotReport] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _read_legacy_ending(cls, data: Any) -> Any:
        """An older record's reason `king-lost` reads as reason game-ending, ending king-lost."""
        if isinstance(data, dict) and data.get("reason") in _LEGACY_ENDINGS:
            return {**data, "reason": Reason.GAME_ENDING.value, "ending": data["reason"]}
        return data

    @field_validator("void")
    @classmethod
    def _void_follows_the_reason(cls, void: bool, info: ValidationInfo) -> bool:
        # `winner` and `reason` come before `void`, so they are validated by now (if valid).
        winner, reason = info.data.get("winner"), info.data.get("reason")
        if void and winner is not None:
            raise ValueError(f"a void game has no winner, but winner is {winner}")
        if isinstance(reason, Reason) and void != reason.voids_game:
            does = "voids" if reason.voids_game else "does not void"
            raise ValueError(f"reason {reason} {does} the game, but void is {str(void).lower()}")
        return void

    @model_validator(mode="after")
    def _ending_goes_with_game_ending(self) -> Result:
        if (self.reason is Reason.GAME_ENDING) != (self.ending is not None):
            raise ValueError("an ending is given exactly when the reason is game-ending")
        return self

    @classmethod
    def of_outcome(cls, outcome: Outcome, plies: int) -> Result:
        """The result of a game of `plies` plies that ended as the rules say (`outcome`), now:
        for records written without bots (found by analysis, made by tests)."""
        return cls(
            winner=outcome.winner,
            reason=outcome.reason,
            ending=outcome.ending,
            detail=outcome.detail,
            plies=plies,
            void=outcome.reason.voids_game,
            finished_at=utc_now(),
        )

    @property
    def why(self) -> str:
        """What ended the game as people read it ("by king-lost", "by timeout")."""
        return why_ended(self.reason, self.ending)

    @property
    def label(self) -> ResultLabel:
        """The result in one word (`result_label`)."""
        return result_label(self.winner, self.reason)


RecordLine = Annotated[Header | Ply | Result, Field(discriminator="type")]
_LINE_ADAPTER: TypeAdapter[Header | Ply | Result] = TypeAdapter(RecordLine)


class GameRecord(_Model):
    """A whole record as read back: `result` is None for a game that never finished."""

    header: Header
    plies: list[Ply]
    result: Result | None


class RecordError(ValueError):
    """A record file that is not a valid record; the message names the file, line and field."""


class EditedRecord(RecordError):
    """A record whose hash chain breaks: a line was changed, removed, inserted or moved after it
    was written; the message names the file and the first line that does not match."""


def utc_now() -> datetime:
    return datetime.now(UTC)


# -- the hash chain -------------------------------------------------------------------------
# Each line's `chain` is the SHA-256 (lowercase hex) of the previous line's `chain` (GENESIS for
# the header), as 64 ASCII characters, followed by the line's canonical form: its JSON object
# without `chain`, serialised as `json.dumps(obj, sort_keys=True, separators=(",", ":"),
# ensure_ascii=False)` in UTF-8. The writer hashes the very object it writes, so a reader gets
# the same bytes back from the line whatever its key order or spacing; any change to a value
# changes them. The chain needs no secret, so it shows that a file was edited, not who wrote it:
# the final hash kept elsewhere (the tournament store) is what a rewritten file cannot match.

CHAIN_FIELD = "chain"
GENESIS = "0" * 64


# Made once: `json.dumps` given any option builds an encoder on every call, which costs as
# much as the encoding of a ply line, written on every move.
_CANONICAL_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_text(data: Mapping[str, Any]) -> str:
    """A record line's canonical form (without its `chain`): what its hash covers."""
    body = {key: value for key, value in data.items() if key != CHAIN_FIELD}
    return _CANONICAL_ENCODER.encode(body)


def canonical_line(data: Mapping[str, Any]) -> bytes:
    """The bytes of a record line that its hash covers: everything but its `chain`."""
    return canonical_text(data).encode("utf-8")


def next_chain(previous: str, data: Mapping[str, Any]) -> str:
    """The `chain` of a line whose predecessor's `chain` is `previous`."""
    return hashlib.sha256(previous.encode("ascii") + canonical_line(data)).hexdigest()


def check_chain(path: Path, lines: list[tuple[int, dict[str, Any]]]) -> str | None:
    """The last line's `chain` if every line's is right; None for a record without a chain.

    A chain starts at the header: a record whose header has none was written by an older
    referee, and then no line may have one. Raises `EditedRecord` at the first line that breaks.
    """
    if not lines:
        return None
    chained = CHAIN_FIELD in lines[0][1]
    previous = GENESIS
    for number, data in lines:
        if not chained:
            if CHAIN_FIELD in data:
                raise _edited(path, number, "a hash chain that does not start at the header")
            continue
        previous = next_chain(previous, data)
        if data.get(CHAIN_FIELD) != previous:
            raise _edited(path, number, "its hash does not follow from the lines up to it")
    return previous if chained else None


def _edited(path: Path, number: int, why: str) -> EditedRecord:
    return EditedRecord(f"{path}:{number}: the record was edited after it was written ({why})")


def final_chain(path: Path) -> str | None:
    """The `chain` of a record file's last line, unchecked (None if there is none): what a store
    keeps of a record its own referee has just written."""
    try:
        lines = path.read_text(encoding="utf-8").rstrip("\n").split("\n")
        value = json.loads(lines[-1]).get(CHAIN_FIELD)
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def ply_data(ply: Ply) -> dict[str, Any]:
    """`ply.model_dump(mode="json")`, made directly: a ply line is written on every move,
    between two moves, and the model's serialiser costs more than the rest of the line."""
    return {
        "type": "ply",
        "ply": ply.ply,
        "side": ply.side.value,
        "received": ply.received,
        "move": ply.move,
        "time_ms": ply.time_ms,
        "cpu_ms": ply.cpu_ms,
    }


class RecordWriter:
    """Appends record lines to a file, flushing each one; `chain` is the last line's hash."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.chain = GENESIS
        # Never through a link planted in a folder others may write to (a bot's own folder):
        # `PlantedLink` names it, and nothing is written (referee/nofollow.py).
        self._file: TextIO | None = os.fdopen(create_file(path), "w", encoding="utf-8")

    def write(self, line: Header | Ply | Result) -> None:
        if self._file is None:
            raise RuntimeError(f"record {self.path} is already closed")
        # The line is written in its canonical form (sorted keys) with its `chain` added last,
        # so that it is serialised once, not once to hash and once to write.
        data = ply_data(line) if isinstance(line, Ply) else line.model_dump(mode="json")
        text = canonical_text(data)
        self.chain = hashlib.sha256((self.chain + text).encode("utf-8")).hexdigest()
        self._file.write(f'{text[:-1]},"{CHAIN_FIELD}":"{self.chain}"}}\n')
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def write_lines(path: Path, lines: list[Header | Ply | Result]) -> None:
    """Write a whole record at once (a game not played line by line as it went)."""
    writer = RecordWriter(path)
    try:
        for line in lines:
            writer.write(line)
    finally:
        writer.close()


def read_record(path: str | os.PathLike[str]) -> GameRecord:
    """Read and validate a record file; raise `RecordError` naming the line and field (and
    `EditedRecord` where its hash chain breaks, before anything else is judged)."""
    return read_chained_record(path).record


class ChainedRecord(NamedTuple):
    """A record as read from its file, with the hash of the file's last line (None: a record
    without a chain). The hash belongs to the file, not to the game: a record as a match
    returns it has none."""

    record: GameRecord
    chain: str | None


def read_chained_record(path: str | os.PathLike[str]) -> ChainedRecord:
    """`read_record`, with the hash of the file's last line."""
    path = Path(path)  # a str is as good as a Path
    lines = _json_lines(path)
    chain = check_chain(path, lines)
    header: Header | None = None
    plies: list[Ply] = []
    result: Result | None = None
    for number, data in lines:
        where = f"{path}:{number}"
        line = _validate_line({k: v for k, v in data.items() if k != CHAIN_FIELD}, where)
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
    return ChainedRecord(GameRecord(header=header, plies=plies, result=result), chain)


def _json_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The non-blank lines of a record file as JSON objects, with their line numbers."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read record: {exc}") from None
    lines = []
    # Only "\n" ends a line: str.splitlines() would also split at U+2028 or U+0085, which JSON
    # leaves unescaped inside strings (a bot's stderr can hold them).
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            where = f"{path}:{number}"
            raise RecordError(f"{where}: not JSON: {exc.msg} (column {exc.colno})") from None
        if not isinstance(data, dict):
            raise RecordError(f"{path}:{number}: not a JSON object")
        lines.append((number, data))
    return lines


def _validate_line(data: dict[str, Any], where: str) -> Header | Ply | Result:
    try:
        return _LINE_ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(line)"
        raise RecordError(f"{where}: field {field}: {first['msg']}") from None


def validation_text(error: Mapping[str, Any]) -> str:
    """A pydantic error's message as a plain sentence: a validator's own words without the
    "Value error, " pydantic puts before them."""
    return str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")


def describe_validation_error(
    exc: ValidationError, where: str, names: Mapping[str, str] | None = None
) -> str:
    """One line per problem: `where: field: message`, without pydantic's links and noise;
    `names` gives a field (`isolation.level`) the name the user typed for it (`--isolation`)."""
    lines = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "(value)"
        lines.append(f"{where}: {(names or {}).get(field, field)}: {validation_text(error)}")
    return "\n".join(lines)
