"""The rows of the arena's store as typed values: one frozen dataclass per table, each built
from a row selected with its `COLUMNS` (`Account.of(row)`). The hashes of secrets (invites, API
tokens, session ids) stay in SQL: no row carries them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Role(StrEnum):
    STAFF = "staff"
    STUDENT = "student"


class VersionStatus(StrEnum):
    RECEIVED = "received"
    BUILDING = "building"
    CHECKING = "checking"
    ACTIVE = "active"
    FAILED = "failed"
    SUPERSEDED = "superseded"
    DISQUALIFIED = "disqualified"


class GameKind(StrEnum):
    PLACEMENT = "placement"
    LADDER = "ladder"
    RERUN = "rerun"


class GameState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    VOID = "void"


Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Account:
    COLUMNS = (
        "id, username, display_name, role, email, password_hash, invite_expires,"
        " token_hash IS NOT NULL, created_at, disabled"
    )

    id: int
    username: str
    display_name: str
    role: Role
    email: str | None
    password_hash: str | None  # argon2id; None: no password set yet
    invite_expires: str | None  # a pending invite's expiry
    has_token: bool
    created_at: str
    disabled: bool

    @classmethod
    def of(cls, row: Row) -> Account:
        values = list(row)
        values[3] = Role(values[3])
        values[7], values[9] = bool(values[7]), bool(values[9])
        return cls(*values)

    @property
    def is_staff(self) -> bool:
        return self.role is Role.STAFF


@dataclass(frozen=True, slots=True)
class Upload:
    COLUMNS = "id, sha256, size, name, account_id, received_at"

    id: int
    sha256: str
    size: int
    name: str
    account_id: int
    received_at: str

    @classmethod
    def of(cls, row: Row) -> Upload:
        return cls(*row)


@dataclass(frozen=True, slots=True)
class Version:
    COLUMNS = (
        "id, account_id, number, upload_id, status, problem, build_log, check_log, command,"
        " capabilities, content_hash, created_at, checked_at, activated_at, late"
    )

    id: int
    account_id: int
    number: int
    upload_id: int
    status: VersionStatus
    problem: str | None
    build_log: str | None
    check_log: str | None
    command: str | None
    capabilities: tuple[str, ...]
    content_hash: str | None
    created_at: str
    checked_at: str | None
    activated_at: str | None
    late: bool

    @classmethod
    def of(cls, row: Row) -> Version:
        values = list(row)
        values[4] = VersionStatus(values[4])
        values[9] = tuple(json.loads(values[9])) if values[9] else ()
        values[14] = bool(values[14])
        return cls(*values)


@dataclass(frozen=True, slots=True)
class Game:
    COLUMNS = (
        "id, kind, blue, orange, seed, opening, state, attempt, record, winner, reason, plies,"
        " created_at, started_at, finished_at, detail, replaces"
    )

    id: int
    kind: GameKind
    blue: int  # version ids
    orange: int
    seed: int
    opening: tuple[str, ...] | None
    state: GameState
    attempt: int
    record: str | None
    winner: str | None  # 'blue', 'orange', or None (a draw, or not played)
    reason: str | None
    plies: int | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    detail: str | None
    replaces: int | None  # the game it replays (this one void) or re-runs; None: scheduled

    @classmethod
    def of(cls, row: Row) -> Game:
        values = list(row)
        values[1] = GameKind(values[1])
        values[5] = tuple(json.loads(values[5])) if values[5] else None
        values[6] = GameState(values[6])
        return cls(*values)


@dataclass(frozen=True, slots=True)
class Rating:
    COLUMNS = "version_id, rating, low, high, games, points, flags, rank, computed_at"

    version_id: int
    rating: float
    low: float | None
    high: float | None
    games: int
    points: float
    flags: str
    rank: int | None
    computed_at: str

    @classmethod
    def of(cls, row: Row) -> Rating:
        return cls(*row)


@dataclass(frozen=True, slots=True)
class AuditEntry:
    COLUMNS = "id, at, account_id, action, target, detail"

    id: int
    at: str
    account_id: int | None  # None: done from the command line
    action: str
    target: str | None
    detail: str | None

    @classmethod
    def of(cls, row: Row) -> AuditEntry:
        return cls(*row)


@dataclass(frozen=True, slots=True)
class Grade:
    COLUMNS = "account_id, version_id, points, grade, computed_at, rank, games, faults"

    account_id: int
    version_id: int | None  # the version it was earned with; None: absent from the final
    points: float
    grade: str
    computed_at: str
    rank: int | None  # among the students; None: did not play
    games: int
    faults: int

    @classmethod
    def of(cls, row: Row) -> Grade:
        return cls(*row)


@dataclass(frozen=True, slots=True)
class Finalist:
    COLUMNS = "account_id, version_id, player, content_hash, pinned_at"

    account_id: int
    version_id: int | None  # the version pinned for the final; None: absent (none was active)
    player: str  # its name in the final's tournament
    content_hash: str | None  # its player's content hash when the final was written
    pinned_at: str

    @classmethod
    def of(cls, row: Row) -> Finalist:
        return cls(*row)
