"""What the staff pages read: the audit log a page at a time (with who did each action), the
number of games in each state, and the accounts with their active versions."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from referee.arena.paging import LARGEST_ID, PAGE_SIZE, Page, page_of
from referee.arena.rows import Account, AuditEntry

_AUDIT_COLUMNS = ", ".join(f"x.{name.strip()}" for name in AuditEntry.COLUMNS.split(","))


@dataclass(frozen=True)
class AuditLine:
    entry: AuditEntry
    actor: str | None  # the username; None: the command line


def audit_page(
    db: sqlite3.Connection, before: int | None = None, size: int = PAGE_SIZE
) -> Page[AuditLine]:
    """The audit log, newest first, from the entry before `before`."""
    rows = db.execute(
        f"SELECT {_AUDIT_COLUMNS}, a.username FROM audit x"
        " LEFT JOIN accounts a ON a.id = x.account_id"
        " WHERE x.id < :before ORDER BY x.id DESC LIMIT :limit",
        {"before": LARGEST_ID if before is None else before, "limit": size + 1},
    ).fetchall()
    lines = [AuditLine(AuditEntry.of(row[:-1]), row[-1]) for row in rows]
    return page_of(lines, size, lambda line: line.entry.id)


def game_counts(db: sqlite3.Connection) -> dict[str, int]:
    """How many games are in each state (from `games_by_state` alone)."""
    counts = {"pending": 0, "running": 0, "done": 0, "void": 0}
    counts.update(db.execute("SELECT state, count(*) FROM games GROUP BY state").fetchall())
    return counts


@dataclass(frozen=True)
class AccountLine:
    account: Account
    active_version: int | None  # the active version's number


def accounts_with_versions(db: sqlite3.Connection) -> list[AccountLine]:
    """Every account, staff first, each with its active version's number."""
    columns = ", ".join(f"a.{name.strip()}" for name in Account.COLUMNS.split(","))
    rows = db.execute(
        f"SELECT {columns}, v.number FROM accounts a"
        " LEFT JOIN versions v ON v.account_id = a.id AND v.status = 'active'"
        " ORDER BY a.role, a.username"
    )
    return [AccountLine(Account.of(row[:-1]), row[-1]) for row in rows]
