"""What a student's page shows, read in one snapshot: the account, its versions (with each
one's rating), its rating history, and a page of its games.

Whether the viewer may see the page is decided before anything is read (visibility.py); this
module only reads, and answers None for an account that is not a student's.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from referee.arena import accounts
from referee.arena.game_queries import GameView, games_of
from referee.arena.paging import Page
from referee.arena.rating_history import RatingPoint, history_of
from referee.arena.rows import Account, Role, VersionStatus
from referee.arena.store import snapshot


@dataclass(frozen=True)
class VersionLine:
    """A version as its author's page lists it."""

    id: int
    number: int
    file_name: str  # as uploaded (untrusted: shown escaped)
    status: VersionStatus
    problem: str | None
    created_at: str
    late: bool
    rating: float | None  # its last rating, if it has played
    games: int | None


@dataclass(frozen=True)
class StudentPage:
    account: Account
    versions: list[VersionLine]
    history: list[RatingPoint]
    games: Page[GameView]


def versions_of(db: sqlite3.Connection, account: int) -> list[VersionLine]:
    """An account's versions, the newest first, each with its last rating."""
    rows = db.execute(
        "SELECT v.id, v.number, u.name, v.status, v.problem, v.created_at, v.late, r.rating,"
        " r.games FROM versions v JOIN uploads u ON u.id = v.upload_id"
        " LEFT JOIN ratings r ON r.version_id = v.id"
        " WHERE v.account_id = ? ORDER BY v.number DESC",
        (account,),
    )
    return [
        VersionLine(
            id=row[0],
            number=row[1],
            file_name=row[2],
            status=VersionStatus(row[3]),
            problem=row[4],
            created_at=row[5],
            late=bool(row[6]),
            rating=row[7],
            games=row[8],
        )
        for row in rows
    ]


def student_account(db: sqlite3.Connection, account_id: int) -> Account | None:
    account = accounts.by_id(db, account_id)
    return account if account is not None and account.role is Role.STUDENT else None


def student_page(db: sqlite3.Connection, account_id: int, before: int | None) -> StudentPage | None:
    """The page of a student's account; None if there is no such student."""
    with snapshot(db):
        account = student_account(db, account_id)
        if account is None:
            return None
        return StudentPage(
            account,
            versions_of(db, account_id),
            history_of(db, account_id),
            games_of(db, account_id, before),
        )
