"""The leaderboard: one row per student with an active version, read in one statement.

Each row has the active version's number and its rating from the last fit (`ratings`): the
rating, its interval (one-sided where the model found only a lower or an upper bound), the games
and points, the model's flags, and its rank (None: not ranked; `provisional`, fewer games than
`[ratings] min_games`, is one reason). The trend is the change of that rating over the
last `TREND_HOURS` (for a version rated for a shorter time, since its first rating), read from
the history (`rating_history`) by its primary key, one seek per row inside the same statement.

Order: the ranked rows by rank, then the unranked by rating, then the versions not rated yet.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from referee.arena.store import stamp

TREND_HOURS = 24

_QUERY = """
SELECT a.id, a.username, a.display_name, v.id, v.number,
       r.rating, r.low, r.high, r.games, r.points, r.flags, r.rank,
       (SELECT h.rating FROM rating_history h WHERE h.version_id = v.id
            AND h.computed_at <= :since ORDER BY h.computed_at DESC LIMIT 1),
       (SELECT h.rating FROM rating_history h WHERE h.version_id = v.id
            ORDER BY h.computed_at LIMIT 1)
FROM versions v
JOIN accounts a ON a.id = v.account_id
LEFT JOIN ratings r ON r.version_id = v.id
WHERE v.status = 'active' AND a.role = 'student'
ORDER BY r.rank IS NULL, r.rank, r.rating IS NULL, r.rating DESC, a.username
"""


@dataclass(frozen=True)
class Standing:
    account_id: int
    username: str
    display_name: str
    version_id: int
    version: int  # the active version's number
    rating: float | None  # None: not rated yet
    low: float | None  # None: no lower bound
    high: float | None  # None: no upper bound
    games: int
    points: float
    flags: frozenset[str]
    rank: int | None  # None: not ranked
    trend: float | None  # the rating's change over the last TREND_HOURS

    @property
    def provisional(self) -> bool:
        """Too few games to be ranked (`[ratings] min_games`), or not rated yet."""
        return "provisional" in self.flags or self.rating is None

    @property
    def interval(self) -> str:
        """The interval as people read it: `a – b`, `≥ a` (a lower bound only), `≤ b`."""
        if self.low is not None and self.high is not None:
            return f"{self.low:.0f} – {self.high:.0f}"
        if self.low is not None:
            return f"≥ {self.low:.0f}"
        if self.high is not None:
            return f"≤ {self.high:.0f}"
        return ""


def flags_of(text: str | None) -> frozenset[str]:
    """The flags column: names separated by commas or spaces."""
    return frozenset(text.replace(",", " ").split()) if text else frozenset()


def standings(db: sqlite3.Connection, now: datetime) -> list[Standing]:
    since = stamp(now - timedelta(hours=TREND_HOURS))
    found = []
    for row in db.execute(_QUERY, {"since": since}):
        account, username, name, version_id, number = row[:5]
        rating, low, high, games, points, flags, rank, before, first = row[5:]
        then = before if before is not None else first
        trend = rating - then if rating is not None and then is not None else None
        found.append(
            Standing(
                account,
                username,
                name,
                version_id,
                number,
                rating,
                low,
                high,
                games or 0,
                points or 0.0,
                flags_of(flags),
                rank,
                trend,
            )
        )
    return found
