"""The audit log: every staff action (and every change made from the command line), with who
did it, when, to what, and the details; staff pages show it, nothing deletes from it.

`note` adds an entry inside the caller's transaction, so that an action and its entry are
committed together or not at all; `entries` reads the log, newest first.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from referee.arena.rows import AuditEntry
from referee.arena.store import stamp


def note(
    db: sqlite3.Connection,
    now: datetime,
    actor: int | None,
    action: str,
    target: str | None = None,
    detail: str | None = None,
) -> None:
    """Add an entry; call it inside the transaction of the action itself. `actor` None: the
    command line (whoever can run it owns the arena's folder)."""
    db.execute(
        "INSERT INTO audit (at, account_id, action, target, detail) VALUES (?, ?, ?, ?, ?)",
        (stamp(now), actor, action, target, detail),
    )


def entries(db: sqlite3.Connection, limit: int = 200) -> list[AuditEntry]:
    rows = db.execute(f"SELECT {AuditEntry.COLUMNS} FROM audit ORDER BY id DESC LIMIT ?", (limit,))
    return [AuditEntry.of(r) for r in rows]
