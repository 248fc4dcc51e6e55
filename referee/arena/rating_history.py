"""Ratings over time: every fit's ratings kept in `rating_history` (the `ratings` table holds the
last fit only), read back as a student's rating history and as the leaderboard's trends.

Whatever writes a fit into `ratings` calls `keep_fit(db, computed_at)` in the same transaction,
so that the history holds exactly the fits the ladder showed.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


def keep_fit(db: sqlite3.Connection, computed_at: str) -> int:
    """Copy the fit of `computed_at` (its rows of `ratings`) into the history; call it inside
    the transaction that wrote them. Returns the rows kept."""
    cursor = db.execute(
        "INSERT OR REPLACE INTO rating_history (version_id, computed_at, rating, low, high, games)"
        " SELECT version_id, computed_at, rating, low, high, games FROM ratings"
        " WHERE computed_at = ?",
        (computed_at,),
    )
    return cursor.rowcount


@dataclass(frozen=True)
class RatingPoint:
    """One version's rating after one fit."""

    version: int  # the version's number (v1, v2, ...)
    at: str
    rating: float
    low: float | None  # None: no lower bound
    high: float | None  # None: no upper bound
    games: int


def history_of(db: sqlite3.Connection, account: int) -> list[RatingPoint]:
    """Every rating of every version of `account`, oldest first."""
    rows = db.execute(
        "SELECT v.number, h.computed_at, h.rating, h.low, h.high, h.games"
        " FROM versions v JOIN rating_history h ON h.version_id = v.id"
        " WHERE v.account_id = ? ORDER BY h.computed_at, v.number",
        (account,),
    )
    return [RatingPoint(*row) for row in rows]
