"""The league's index: an SQLite file (`league.sqlite`, WAL) of every game of its sources, the
bots and versions that played them, and the last ratings.

The index holds nothing that cannot be read again from the sources: it is what makes re-reading
incremental (only games that are new or changed since are read) and the dashboard fast. Each
source's changes are committed in one transaction with what was read, and the ratings in
another, so a crash or Ctrl-C loses at most the source being read, which the next run reads
again. One writer at a time (a lock file beside it); readers (the dashboard) any time.

Players are versions: a bot is a name in a game; a version of it is what it was made of (the
content hash its records carry; '' for records without one). A resubmitted bot is a new version
of the same bot: rated on its own, shown with the others on the bot's page.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from referee.league.config import INDEX_NAME, LOCK_NAME, LeagueError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sources (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,             -- absolute
    position INTEGER NOT NULL,             -- in the league's config
    kind TEXT NOT NULL CHECK (kind IN ('tournament', 'match')),
    name TEXT NOT NULL,
    game TEXT NOT NULL
);
CREATE TABLE bots (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    UNIQUE (game, name)
);
CREATE TABLE versions (
    id INTEGER PRIMARY KEY,
    bot INTEGER NOT NULL REFERENCES bots(id),
    content_hash TEXT NOT NULL,            -- '' for records written without one
    command TEXT NOT NULL,
    first_seen TEXT NOT NULL,              -- when its first game started
    UNIQUE (bot, content_hash)
);
CREATE TABLE games (
    source INTEGER NOT NULL REFERENCES sources(id),
    number INTEGER NOT NULL,
    game TEXT NOT NULL,
    blue INTEGER NOT NULL REFERENCES versions(id),
    orange INTEGER NOT NULL REFERENCES versions(id),
    result TEXT NOT NULL CHECK (result IN ('blue', 'orange', 'draw')),
    reason TEXT NOT NULL,                  -- a reason, or the game's own ending
    fault TEXT CHECK (fault IN ('blue', 'orange')),  -- the side whose fault ended it
    rated INTEGER NOT NULL,                -- 0: neither bot could play (a double forfeit)
    plies INTEGER NOT NULL,
    record TEXT NOT NULL,                  -- relative to the source's folder
    started_at TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    chain TEXT,
    PRIMARY KEY (source, number)
);
CREATE INDEX games_blue ON games (blue, finished_at);
CREATE INDEX games_orange ON games (orange, finished_at);
CREATE INDEX games_finished ON games (finished_at);
CREATE INDEX games_reason ON games (reason, finished_at);
CREATE TABLE ratings (
    version INTEGER PRIMARY KEY REFERENCES versions(id),
    rank INTEGER NOT NULL,                 -- within its game
    rating REAL NOT NULL,
    low REAL,
    high REAL,
    games INTEGER NOT NULL,
    points REAL NOT NULL,                  -- wins + draws / 2
    los_next REAL                          -- P(stronger than the next one down)
);
CREATE TABLE kinds (
    game TEXT PRIMARY KEY,
    advantage REAL NOT NULL,
    draw_elo REAL NOT NULL,
    games INTEGER NOT NULL
);
CREATE TABLE history (
    version INTEGER NOT NULL REFERENCES versions(id),
    step INTEGER NOT NULL,
    period TEXT NOT NULL,
    rating REAL NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (version, step)
);
"""


@dataclass(frozen=True, slots=True)
class Source:
    path: Path
    position: int
    kind: str  # tournament, match
    name: str
    game: str


@dataclass(frozen=True, slots=True)
class Player:
    """One version of a bot, as a game's record names it."""

    game: str
    name: str
    content_hash: str
    command: str


@dataclass(frozen=True, slots=True)
class IndexedGame:
    number: int
    blue: Player
    orange: Player
    result: str  # blue, orange, draw
    reason: str
    fault: str | None
    rated: bool
    plies: int
    record: str
    started_at: str
    finished_at: str
    chain: str | None


@dataclass(frozen=True, slots=True)
class RatingRow:
    version: int
    rank: int
    rating: float
    low: float | None
    high: float | None
    games: int
    points: float
    los_next: float | None


@dataclass(frozen=True, slots=True)
class RatedGame:
    """One rated game, as the fit reads it."""

    blue: int  # the version ids of its players
    orange: int
    game: str
    result: str  # blue, orange or draw
    finished_at: str  # ISO 8601
    source: str  # the path of the source it was read from


@dataclass(frozen=True, slots=True)
class KindRow:
    """What the fit found for one game (Alak, Lielow...): its first-move advantage and draw
    margin, in Elo, from its number of games."""

    game: str
    advantage: float
    draw_elo: float
    games: int


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """A version's rating after one period of the history (step 1 is the first), from the games
    it had played by then."""

    version: int
    step: int
    period: str  # a source's path, a week (2024-W07) or a month (2024-02)
    rating: float
    games: int


class LeagueIndex:
    """The index of a league's folder, open for reading (`writer` False) or writing."""

    def __init__(self, db: sqlite3.Connection, path: Path, lock_fd: int | None) -> None:
        self.db = db
        self.path = path
        self._lock_fd = lock_fd

    def close(self) -> None:
        self.db.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)

    # -- the sources ----------------------------------------------------------------------

    def known_games(self, path: Path) -> dict[int, tuple[str | None, str]]:
        """The games indexed from the source at `path`: number -> (chain, finished_at)."""
        rows = self.db.execute(
            "SELECT number, chain, finished_at FROM games JOIN sources ON games.source = sources.id"
            " WHERE sources.path = ?",
            (str(path),),
        )
        return {number: (chain, finished) for number, chain, finished in rows}

    def apply_source(
        self, source: Source, changed: Iterable[IndexedGame], gone: Iterable[int]
    ) -> None:
        """Record what was read of one source, in one transaction."""
        with self.db:
            source_id = self._source_id(source)
            self.db.executemany(
                "DELETE FROM games WHERE source = ? AND number = ?",
                [(source_id, number) for number in gone],
            )
            rows = []
            for game in changed:
                blue, orange = self._version(game.blue, game), self._version(game.orange, game)
                rows.append(
                    (
                        source_id, game.number, source.game, blue, orange, game.result,
                        game.reason, game.fault, int(game.rated), game.plies, game.record,
                        game.started_at, game.finished_at, game.chain,
                    )
                )  # fmt: skip
            self.db.executemany(
                "INSERT OR REPLACE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    def _source_id(self, source: Source) -> int:
        self.db.execute(
            "INSERT INTO sources (path, position, kind, name, game) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (path) DO UPDATE SET position = excluded.position,"
            " kind = excluded.kind, name = excluded.name, game = excluded.game",
            (str(source.path), source.position, source.kind, source.name, source.game),
        )
        (found,) = self.db.execute(
            "SELECT id FROM sources WHERE path = ?", (str(source.path),)
        ).fetchone()
        return int(found)

    def _version(self, player: Player, game: IndexedGame) -> int:
        self.db.execute(
            "INSERT OR IGNORE INTO bots (game, name) VALUES (?, ?)", (player.game, player.name)
        )
        (bot,) = self.db.execute(
            "SELECT id FROM bots WHERE game = ? AND name = ?", (player.game, player.name)
        ).fetchone()
        self.db.execute(
            "INSERT INTO versions (bot, content_hash, command, first_seen) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (bot, content_hash) DO UPDATE SET"
            " first_seen = MIN(first_seen, excluded.first_seen)",
            (bot, player.content_hash, player.command, game.started_at),
        )
        (version,) = self.db.execute(
            "SELECT id FROM versions WHERE bot = ? AND content_hash = ?",
            (bot, player.content_hash),
        ).fetchone()
        return int(version)

    def keep_sources(self, paths: list[Path]) -> int:
        """Forget the sources no longer in the config (and bots left without games); returns
        how many games went with them."""
        keep = {str(p) for p in paths}
        with self.db:
            gone = [
                (sid,)
                for sid, path in self.db.execute("SELECT id, path FROM sources")
                if path not in keep
            ]
            before = self.db.total_changes
            self.db.executemany("DELETE FROM games WHERE source = ?", gone)
            removed = self.db.total_changes - before
            self.db.executemany("DELETE FROM sources WHERE id = ?", gone)
            self._forget_unplayed()
        return removed

    def _forget_unplayed(self) -> None:
        played = "SELECT blue FROM games UNION SELECT orange FROM games"
        for table in ("ratings", "history"):
            self.db.execute(f"DELETE FROM {table} WHERE version NOT IN ({played})")
        self.db.execute(f"DELETE FROM versions WHERE id NOT IN ({played})")
        self.db.execute("DELETE FROM bots WHERE id NOT IN (SELECT bot FROM versions)")

    # -- what the fit reads and writes ----------------------------------------------------

    def rated_games(self) -> list[RatedGame]:
        """Every rated game, source by source in the config's order, by time in each."""
        rows = self.db.execute(
            "SELECT blue, orange, games.game, result, finished_at, sources.path"
            " FROM games JOIN sources ON games.source = sources.id"
            " WHERE rated = 1 ORDER BY sources.position, finished_at"
        ).fetchall()
        return [RatedGame(*row) for row in rows]

    def save_ratings(
        self,
        ratings: list[RatingRow],
        kinds: list[KindRow],
        history: list[HistoryRow],
        meta: dict[str, str],
    ) -> None:
        """Replace the ratings (and their history), in one transaction."""
        with self.db:
            for table in ("ratings", "kinds", "history"):
                self.db.execute(f"DELETE FROM {table}")
            self.db.executemany(
                "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (r.version, r.rank, r.rating, r.low, r.high, r.games, r.points, r.los_next)
                    for r in ratings
                ],
            )
            self.db.executemany(
                "INSERT INTO kinds VALUES (?, ?, ?, ?)",
                [(k.game, k.advantage, k.draw_elo, k.games) for k in kinds],
            )
            self.db.executemany(
                "INSERT INTO history VALUES (?, ?, ?, ?, ?)",
                [(h.version, h.step, h.period, h.rating, h.games) for h in history],
            )
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())

    def meta(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM meta").fetchall())


_TABLES = frozenset({"meta", "sources", "bots", "versions", "games", "ratings", "kinds", "history"})
_PRAGMAS = ("PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", "PRAGMA foreign_keys = ON")


def open_index(folder: Path, *, writer: bool) -> LeagueIndex:
    """Open (a writer creates it) the index of the league in `folder`. A file that is not a
    league's index, or a damaged one, is refused with a `LeagueError` naming it; a writer
    holds the folder's lock until closed."""
    path = folder / INDEX_NAME
    if not writer and not path.is_file():
        raise LeagueError(f"{folder}: the league has no index yet (run `referee league rate`)")
    lock_fd = _lock(folder) if writer else None
    try:
        db = _connect(path, writer)
    except BaseException:
        if lock_fd is not None:
            os.close(lock_fd)
        raise
    return LeagueIndex(db, path, lock_fd)


def _connect(path: Path, writer: bool) -> sqlite3.Connection:
    uri = path.resolve().as_uri() + ("" if writer else "?mode=ro")
    try:
        db = sqlite3.connect(uri, uri=True, check_same_thread=False)
    except sqlite3.DatabaseError as exc:
        raise LeagueError(f"{path}: cannot open the league's index: {exc}") from None
    try:
        db.execute("PRAGMA busy_timeout = 5000")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if writer:
            for pragma in _PRAGMAS:
                db.execute(pragma)
            if not tables:
                with db:
                    db.executescript("BEGIN;" + _SCHEMA)
                    db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
                tables = set(_TABLES)
        if not tables >= _TABLES:
            raise LeagueError(f"{path}: not a league's index (it lacks the league's tables)")
    except sqlite3.DatabaseError as exc:
        db.close()
        raise LeagueError(f"{path}: cannot read the league's index: {exc}") from None
    except BaseException:
        db.close()
        raise
    return db


def _lock(folder: Path) -> int:
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise LeagueError(f"{folder}: another referee is updating this league right now") from None
    return fd
