"""Versions: the state machine of one upload on its way to the ladder, and who may see it.

    received --> building --> checking --> active --> superseded (a later one became active)
                     \\             \\
                      `-------------`--> failed (its problem in plain words, its logs kept)
    received (late)    uploaded when uploads were closed: kept, never built or played
    received --> superseded   a later upload of the same account came before its turn
    any --> disqualified      by the staff

The submission worker takes versions in the order they came (`claim_next`), one account at a
time: when an account has several versions waiting, only its newest is checked (a student who
uploads three times in a minute wants the last one) and the older waiting ones are superseded
without a check. A version becomes active only once it passed its check, and in the same
transaction the account's previous active version becomes superseded (`finish`): until then
the previous one stays active. A version a stopped server left `building` or `checking` is
taken again at the next start (`requeue_interrupted`).

A version is shown to its owner and to the staff only (`visible`): anyone else gets nothing,
which the pages turn into the same 404 as a version that does not exist.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime

from referee.arena.rows import Account, Upload, Version, VersionStatus
from referee.arena.store import stamp, transaction

IN_PROGRESS = (VersionStatus.RECEIVED, VersionStatus.BUILDING, VersionStatus.CHECKING)
SKIPPED = "Not checked: v{newer}, uploaded after it, was checked instead."


@dataclass(frozen=True)
class Entry:
    """A version with its upload and its owner's username, as the pages and the API show it."""

    version: Version
    upload: Upload
    username: str

    @property
    def waiting(self) -> bool:
        """Still on its way (not late, not yet active or failed)."""
        return self.version.status in IN_PROGRESS and not self.version.late


def _columns(table: str, columns: str) -> str:
    return ", ".join(f"{table}.{c.strip()}" for c in columns.split(","))


_SELECT = (
    f"SELECT {_columns('v', Version.COLUMNS)}, {_columns('u', Upload.COLUMNS)}, a.username"
    " FROM versions v JOIN uploads u ON u.id = v.upload_id JOIN accounts a ON a.id = v.account_id"
)
_VERSION_WIDTH = len(Version.COLUMNS.split(","))
_UPLOAD_WIDTH = len(Upload.COLUMNS.split(","))


def _entry(row: tuple[object, ...]) -> Entry:
    split = _VERSION_WIDTH + _UPLOAD_WIDTH
    return Entry(
        Version.of(row[:_VERSION_WIDTH]), Upload.of(row[_VERSION_WIDTH:split]), str(row[split])
    )


def entry(db: sqlite3.Connection, version_id: int) -> Entry | None:
    row = db.execute(f"{_SELECT} WHERE v.id = ?", (version_id,)).fetchone()
    return None if row is None else _entry(row)


def visible(db: sqlite3.Connection, version_id: int, viewer: Account) -> Entry | None:
    """The version if `viewer` may see it (their own, or any for staff), else None."""
    found = entry(db, version_id)
    if found is None or not (viewer.is_staff or found.version.account_id == viewer.id):
        return None
    return found


def of_account(db: sqlite3.Connection, account_id: int) -> list[Entry]:
    """An account's versions, newest first."""
    rows = db.execute(f"{_SELECT} WHERE v.account_id = ? ORDER BY v.number DESC", (account_id,))
    return [_entry(row) for row in rows]


def everyone(db: sqlite3.Connection, limit: int = 500) -> list[Entry]:
    """Every account's versions, newest first (the staff's view)."""
    rows = db.execute(f"{_SELECT} ORDER BY v.id DESC LIMIT ?", (limit,))
    return [_entry(row) for row in rows]


def claim_next(db: sqlite3.Connection) -> Version | None:
    """The next version to check, now `building`; None when none waits. Its account is the
    one whose oldest waiting upload came first, of those with no version being checked; of
    that account's waiting versions the newest is taken and the older ones superseded."""
    with transaction(db):
        row = db.execute(
            "SELECT account_id FROM versions v WHERE status = 'received' AND late = 0"
            " AND NOT EXISTS (SELECT 1 FROM versions w WHERE w.account_id = v.account_id"
            " AND w.status IN ('building', 'checking')) ORDER BY id LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        newest = db.execute(
            f"SELECT {Version.COLUMNS} FROM versions WHERE account_id = ? AND status = 'received'"
            " AND late = 0 ORDER BY number DESC LIMIT 1",
            (row[0],),
        ).fetchone()
        version = Version.of(newest)
        db.execute(
            "UPDATE versions SET status = 'superseded', problem = ? WHERE account_id = ?"
            " AND status = 'received' AND late = 0 AND number < ?",
            (SKIPPED.format(newer=version.number), version.account_id, version.number),
        )
        claimed = db.execute(
            f"UPDATE versions SET status = 'building' WHERE id = ? RETURNING {Version.COLUMNS}",
            (version.id,),
        ).fetchone()
    return Version.of(claimed)


def any_waiting(db: sqlite3.Connection) -> bool:
    """Whether a version waits for the worker (a read: the worker's idle poll takes no lock)."""
    row = db.execute("SELECT 1 FROM versions WHERE status = 'received' AND late = 0 LIMIT 1")
    return row.fetchone() is not None


def built(
    db: sqlite3.Connection,
    version_id: int,
    *,
    build_log: str,
    command: str,
    content_hash: str,
    capabilities: list[str],
) -> None:
    """Built and runnable: on to the check games."""
    with transaction(db):
        db.execute(
            "UPDATE versions SET status = 'checking', build_log = ?, command = ?,"
            " content_hash = ?, capabilities = ? WHERE id = ? AND status = 'building'",
            (build_log, command, content_hash, json.dumps(capabilities), version_id),
        )


def finish(
    db: sqlite3.Connection,
    version_id: int,
    now: datetime,
    *,
    passed: bool,
    problem: str | None,
    build_log: str | None = None,
    check_log: str | None = None,
) -> VersionStatus | None:
    """The end of a version's check: `active` if it passed (and the account's active version,
    if any, `superseded` in the same transaction), else `failed` with its problem. The logs
    given replace those stored (None keeps them). Returns the new status, or None when the
    version was no longer being checked (the staff disqualified it meanwhile)."""
    status = VersionStatus.ACTIVE if passed else VersionStatus.FAILED
    with transaction(db):
        row = db.execute(
            "SELECT account_id FROM versions WHERE id = ? AND status IN ('building', 'checking')",
            (version_id,),
        ).fetchone()
        if row is None:
            return None
        if passed:
            db.execute(
                "UPDATE versions SET status = 'superseded' WHERE account_id = ?"
                " AND status = 'active'",
                (row[0],),
            )
        db.execute(
            "UPDATE versions SET status = ?, problem = ?, build_log = coalesce(?, build_log),"
            " check_log = coalesce(?, check_log), checked_at = ?,"
            " activated_at = CASE WHEN ? THEN ? END WHERE id = ?",
            (
                status.value,
                problem,
                build_log,
                check_log,
                stamp(now),
                passed,
                stamp(now),
                version_id,
            ),
        )
    return status


def requeue_interrupted(db: sqlite3.Connection) -> int:
    """Versions a stopped server left being built or checked wait again (at the next start,
    before the worker takes any); returns how many."""
    with transaction(db):
        cursor = db.execute(
            "UPDATE versions SET status = 'received' WHERE status IN ('building', 'checking')"
        )
    return cursor.rowcount
