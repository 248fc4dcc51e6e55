"""The ladder's ratings: the project's one rating model (`referee.stats.rating.rate`,
docs/ratings.md) fitted to every game that counts (`done`), from the first to the last, so
that the same games always give the same ratings.

Blue moves first in every game (after the opening, if any); the games are one kind, the
arena's game. Each group of versions that met has its core centred on `ANCHOR` Elo. A version
with fewer than `[ratings] min_games` games is provisional; the model's flags (provisional,
unbeaten, winless, unbounded) are kept with each rating. Ranks are dense, among the active
versions the model ranks (not provisional, not unbounded), best first.

The `ratings` table caches the last fit (replaced whole); `rating_history` keeps a row for each
version whose games changed since the fit before, so that a version's rating can be drawn over
time without a row per version per game. A fit is read (`rating_data`), computed off the store
(`fit`) and written (`store_ratings`) as three steps, so that a fit never holds the store.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from referee.arena.rows import Rating
from referee.arena.store import snapshot, stamp, transaction
from referee.stats.rating import Anchor, RatingInput, RatingOptions, rate
from referee.stats.rating_input import Outcome

ANCHOR = 1500.0  # Elo: where each group of versions that met is centred
KIND = "ladder"
_TIE = 1e-6  # Elo: equal ratings share a rank, as the model ranks them
_OUTCOME: dict[str | None, Outcome] = {"blue": "first", "orange": "second", None: "draw"}
# Model flags that keep a version out of the ranks.
UNRANKED = frozenset({"alone", "provisional", "unbounded"})


@dataclass(frozen=True)
class RatingData:
    """What a fit reads: every counted game, counted by (blue, orange, winner), and the
    versions to rate (every active one, with or without games)."""

    results: tuple[tuple[int, int, str | None, int], ...]
    active: frozenset[int]


def rating_data(db: sqlite3.Connection) -> RatingData:
    """The counted results, from the counts the store's triggers keep per pair (a row per
    pair, not per game: every game that counts is in them)."""
    with snapshot(db):
        counts = db.execute(
            "SELECT blue, orange, blue_wins, orange_wins, draws FROM pair_games"
            " WHERE blue_wins + orange_wins + draws > 0 ORDER BY blue, orange"
        ).fetchall()
        active = db.execute("SELECT id FROM versions WHERE status = 'active'").fetchall()
    results = []
    for blue, orange, *by_result in counts:
        for winner, count in zip(("blue", "orange", None), by_result, strict=True):
            if count:
                results.append((blue, orange, winner, count))
    return RatingData(tuple(results), frozenset(r[0] for r in active))


def fit(data: RatingData, min_games: int, now: datetime) -> list[Rating]:
    """The rating of every version with games (pure: the same data, the same ratings)."""
    counted = RatingInput()
    for version in sorted(data.active):
        counted.add_player(str(version))
    for blue, orange, winner, count in data.results:
        counted.add(str(blue), str(orange), KIND, _OUTCOME[winner], count)
    report = rate(counted, RatingOptions(min_games=min_games, anchor=Anchor(ANCHOR)))
    rows = [r for r in (*report.rows, *report.hidden) if r.rating is not None]
    ranked = sorted(
        (r for r in rows if int(r.name) in data.active and not r.flags & UNRANKED),
        key=lambda r: (-(r.rating or 0.0), int(r.name)),
    )
    ranks: dict[str, int] = {}
    rank, previous = 0, None
    for row in ranked:
        assert row.rating is not None
        if previous is None or abs(row.rating - previous) > _TIE:
            rank += 1
        ranks[row.name], previous = rank, row.rating
    at = stamp(now)
    return sorted(
        (
            Rating(
                version_id=int(r.name),
                rating=r.rating,
                low=r.interval.low,
                high=r.interval.high,
                games=r.games,
                points=r.points,
                flags=",".join(sorted(r.flags)),
                rank=ranks.get(r.name),
                computed_at=at,
            )
            for r in rows
            if r.rating is not None
        ),
        key=lambda r: r.version_id,
    )


def store_ratings(db: sqlite3.Connection, ratings: list[Rating]) -> int:
    """Replace the cached ratings with `ratings`, and add a history row for each version
    whose games changed since the last fit; the number of history rows added."""
    with transaction(db):
        before = dict(db.execute("SELECT version_id, games FROM ratings").fetchall())
        moved = [r for r in ratings if before.get(r.version_id) != r.games]
        db.execute("DELETE FROM ratings")
        values = [_values(r) for r in ratings]
        db.executemany(f"INSERT INTO ratings ({Rating.COLUMNS}) VALUES ({_MARKS})", values)
        db.executemany(
            f"INSERT INTO rating_history ({Rating.COLUMNS}) VALUES ({_MARKS})",
            [_values(r) for r in moved],
        )
    return len(moved)


_MARKS = ", ".join("?" * len(Rating.COLUMNS.split(",")))


def _values(r: Rating) -> tuple[object, ...]:
    return (r.version_id, r.rating, r.low, r.high, r.games, r.points, r.flags, r.rank,
            r.computed_at)  # fmt: skip


def recompute(db: sqlite3.Connection, now: datetime, min_games: int) -> list[Rating]:
    """Read, fit and store in one call (the command line and tests; the server runs the
    three steps apart)."""
    ratings = fit(rating_data(db), min_games, now)
    store_ratings(db, ratings)
    return ratings


def fit_key(db: sqlite3.Connection) -> tuple[int, ...]:
    """What tells whether the ratings must be fitted again: the changes to the games that
    count (a counter the store's triggers bump) and the active versions (ranks are theirs)."""
    with snapshot(db):
        (changes,) = db.execute("SELECT results FROM ladder_changes").fetchone()
        active = db.execute(
            "SELECT COUNT(*), COALESCE(SUM(id), 0), COALESCE(MAX(id), 0) FROM versions"
            " WHERE status = 'active'"
        ).fetchone()
    return tuple(int(x) for x in (changes, *active))


def cached(db: sqlite3.Connection) -> list[Rating]:
    """The last fit, best first (ranked rows by rank, then the others by rating)."""
    rows = db.execute(
        f"SELECT {Rating.COLUMNS} FROM ratings ORDER BY rank IS NULL, rank, rating DESC, version_id"
    )
    return [Rating.of(r) for r in rows]


def history(db: sqlite3.Connection, version_id: int) -> list[Rating]:
    """A version's rating after each fit that counted new games of it, oldest first."""
    rows = db.execute(
        f"SELECT {Rating.COLUMNS} FROM rating_history WHERE version_id = ?"
        " ORDER BY computed_at, rowid",
        (version_id,),
    )
    return [Rating.of(r) for r in rows]
