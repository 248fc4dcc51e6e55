"""Ratings over time, read back as a student's rating history and as the leaderboard's trends:
`rating_history` holds each version's rating after every fit that moved it (written with the
fit by `ratings.store_ratings`; the `ratings` table holds the last fit only).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


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
