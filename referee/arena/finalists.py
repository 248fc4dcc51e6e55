"""The final's players in the store: each student's version pinned for the final, and what the
final waits for before it pins them. Queries of the store, as functions of a connection.

`pin` records, in one transaction, every student's active version that was uploaded in time
(a late upload is never played, even if it became active) or, for a student with none, an
absent entry; it marks the arena pinned (`deadline.PINNED`: from then on uploads are closed and
the ladder starts no game; its waiting games are withdrawn) and notes it in the audit log. It
pins once: later calls change nothing, so the server and `referee arena final` may both reach
it.

Before pinning at the deadline the server waits for `waiting_checks` (versions uploaded in time
whose build and check have not ended: such a version counts if it passes) and for the ladder's
`running_games` to end, those waiting included unless the ladder is paused (the final's games
then have the machine to themselves).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime

from referee.arena import audit
from referee.arena.controls import is_paused
from referee.arena.deadline import PINNED
from referee.arena.rows import Finalist, Version
from referee.arena.store import get_state, snapshot, stamp, transaction

WAITING = ("received", "building", "checking")
RERUN_WITHDRAWN = "its re-run was withdrawn at the final's pin: this result counts again"


@dataclass(frozen=True, slots=True)
class Entry:
    """A finalist with what the final needs of its account and version."""

    account_id: int
    username: str
    display_name: str
    player: str
    version_id: int | None  # None: absent
    version_number: int | None
    command: str | None
    capabilities: tuple[str, ...]
    content_hash: str | None  # recorded when the final's config was written


def pinned_at(db: sqlite3.Connection) -> str | None:
    """When the final's versions were pinned, or None."""
    return get_state(db, PINNED)


def waiting_checks(db: sqlite3.Connection) -> list[Version]:
    """Versions uploaded in time that are still being built or checked."""
    marks = ", ".join("?" * len(WAITING))
    rows = db.execute(
        f"SELECT {Version.COLUMNS} FROM versions WHERE late = 0 AND status IN ({marks})"
        " ORDER BY id",
        WAITING,
    )
    return [Version.of(row) for row in rows]


def running_games(db: sqlite3.Connection) -> int:
    """Ladder games being played, or waiting to be (after the deadline the ladder schedules
    nothing new but plays what waits), unless the ladder is paused: then `pin` withdraws the
    waiting ones instead."""
    paused = int(is_paused(db))
    (count,) = db.execute(
        "SELECT COUNT(*) FROM games WHERE state = 'running' OR (state = 'pending' AND NOT ?)",
        (paused,),
    ).fetchone()
    return int(count)


def pin(db: sqlite3.Connection, now: datetime, actor: int | None) -> bool:
    """Pin every student's version for the final (see the module docstring); False if the
    versions were pinned already (nothing is changed)."""
    with transaction(db):
        if get_state(db, PINNED) is not None:
            return False
        rows = db.execute(
            "SELECT a.id, a.username, v.id FROM accounts a LEFT JOIN versions v"
            " ON v.account_id = a.id AND v.status = 'active' AND v.late = 0"
            " WHERE a.role = 'student' ORDER BY a.username"
        ).fetchall()
        when = stamp(now)
        db.executemany(
            "INSERT INTO finalists (account_id, version_id, player, pinned_at) VALUES (?, ?, ?, ?)",
            [(account, version, username, when) for account, username, version in rows],
        )
        db.execute("INSERT INTO state VALUES (?, ?)", (PINNED, when))
        # The ladder starts no game once pinned (ladder_store.take_next): what still waits is
        # withdrawn, so that the final's games have the machine to themselves. A re-run
        # withdrawn so gives its game's result back: it was voided for a re-run that never
        # comes.
        db.execute(
            "UPDATE games SET state = 'done', detail = ? WHERE state = 'void' AND id IN"
            " (SELECT replaces FROM games WHERE state = 'pending' AND kind = 'rerun')",
            (RERUN_WITHDRAWN,),
        )
        db.execute(
            "UPDATE games SET state = 'void', finished_at = ?,"
            " detail = 'withdrawn: the final''s versions are pinned' WHERE state = 'pending'",
            (when,),
        )
        absent = [username for _, username, version in rows if version is None]
        detail = f"absent: {', '.join(absent)}" if absent else "nobody absent"
        audit.note(db, now, actor, "pin-final", f"{len(rows) - len(absent)} versions", detail)
    return True


def finalists(db: sqlite3.Connection) -> list[Finalist]:
    rows = db.execute(f"SELECT {Finalist.COLUMNS} FROM finalists ORDER BY player")
    return [Finalist.of(row) for row in rows]


def entries(db: sqlite3.Connection) -> list[Entry]:
    """Every finalist with its account and version, by player name."""
    with snapshot(db):
        rows = db.execute(
            "SELECT f.account_id, a.username, a.display_name, f.player, f.version_id, v.number,"
            " v.command, v.capabilities, f.content_hash FROM finalists f"
            " JOIN accounts a ON a.id = f.account_id"
            " LEFT JOIN versions v ON v.id = f.version_id ORDER BY f.player"
        ).fetchall()
    return [_entry(*row) for row in rows]


def _entry(
    account: int, username: str, name: str, player: str, version: int | None,
    number: int | None, command: str | None, capabilities: str | None, digest: str | None,
) -> Entry:  # fmt: skip
    listed = tuple(json.loads(capabilities)) if capabilities else ()
    return Entry(account, username, name, player, version, number, command, listed, digest)


def record_hashes(db: sqlite3.Connection, hashes: dict[int, str]) -> None:
    """Each pinned version's content hash (by account), as the final's config plays it."""
    with transaction(db):
        db.executemany(
            "UPDATE finalists SET content_hash = ? WHERE account_id = ?",
            [(digest, account) for account, digest in hashes.items()],
        )
