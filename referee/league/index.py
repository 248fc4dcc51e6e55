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

Only games whose records hold (`discovery.py`) are in `games`, each under its key (its record's
final hash) so that a game read again from a copied folder counts once. The others are kept in
`refused`, with what was wrong (or which game a copy repeats), so that every command can say
what the league left out, and they are read again only once their store says they changed. An
index of an older schema (whose games were not checked) is made again from the sources.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from referee.league.config import INDEX_NAME, LOCK_NAME, LeagueError
from referee.nofollow import PlantedLink, refuse_links

SCHEMA_VERSION = 3  # 2: games checked before they are rated, and the refused kept; 3: flags

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
    game_key TEXT NOT NULL,                -- the record's final hash (else the file's SHA-256)
    seen TEXT NOT NULL,                    -- the store's row as read: read again once it changes
    PRIMARY KEY (source, number)
);
CREATE INDEX games_key ON games (game_key);
CREATE TABLE ratings (
    version INTEGER PRIMARY KEY REFERENCES versions(id),
    rank INTEGER,                          -- dense, within its component; NULL: not ranked
    rating REAL NOT NULL,
    low REAL,
    high REAL,
    games INTEGER NOT NULL,
    points REAL NOT NULL,                  -- wins + draws / 2
    los_next REAL,                         -- P(stronger than the next one down)
    side TEXT NOT NULL DEFAULT 'two-sided', -- of the interval: two-sided, lower, upper, none
    flags TEXT NOT NULL DEFAULT '',        -- unbeaten, winless, unbounded, provisional (spaced)
    component INTEGER NOT NULL DEFAULT 0   -- players that never met another's are rated apart
);
CREATE TABLE kinds (
    game TEXT PRIMARY KEY,
    advantage REAL NOT NULL,
    draw_elo REAL NOT NULL,
    games INTEGER NOT NULL
);
CREATE TABLE refused (                     -- finished games of a source that are not rated
    source INTEGER NOT NULL REFERENCES sources(id),
    number INTEGER NOT NULL,
    seen TEXT NOT NULL,                    -- the store's row as read: read again once it changes
    record TEXT,                           -- relative to the source's folder
    kind TEXT NOT NULL CHECK (kind IN ('refused', 'copy')),
    game_key TEXT,                         -- a copy's: the key of the game it repeats
    problem TEXT NOT NULL,
    PRIMARY KEY (source, number)
);
CREATE TABLE history (
    version INTEGER NOT NULL REFERENCES versions(id),
    step INTEGER NOT NULL,
    period TEXT NOT NULL,
    rating REAL NOT NULL,
    games INTEGER NOT NULL,
    low REAL,                              -- the interval at that step; NULL: no such bound
    high REAL,
    PRIMARY KEY (version, step)
);
"""

# Columns added since SCHEMA_VERSION 3 without a rebuild: a writer adds those an index lacks
# (its rows get NULL, filled by the next rating), a reader reads NULL in their place.
_ADDED_COLUMNS = {"history": (("low", "REAL"), ("high", "REAL"))}


# The lists of games are paged by their key (finished_at, source, number), latest first: each
# page starts where the last one ended, found in an index, never by skipping rows (OFFSET reads
# every row it skips: the millionth game cost a second). One index per filter that can lead.
# A bot's results by opponent are read from indexes that hold them (reading each of the bot's
# games' rows took 120 ms at a million games).
# A bot's losses by a fault (a few of its games) have indexes of their own, of the faulted
# games only and holding what their count and the tally of faults read: counting them through
# games_blue_page read each of the bot's games to check whose fault ended it (45 ms a bot at a
# million games).
# Made by every writer (IF NOT EXISTS), so an index made before them gains them with no rebuild.
_INDEXES = """
DROP INDEX IF EXISTS games_finished;
CREATE INDEX IF NOT EXISTS games_page ON games (finished_at, source, number);
CREATE INDEX IF NOT EXISTS games_blue_page ON games (blue, finished_at, source, number);
CREATE INDEX IF NOT EXISTS games_orange_page ON games (orange, finished_at, source, number);
CREATE INDEX IF NOT EXISTS games_reason_page ON games (reason, finished_at, source, number);
CREATE INDEX IF NOT EXISTS games_game_page ON games (game, finished_at, source, number);
CREATE INDEX IF NOT EXISTS games_blue_opponent ON games (blue, orange, result);
CREATE INDEX IF NOT EXISTS games_orange_opponent ON games (orange, blue, result);
CREATE INDEX IF NOT EXISTS games_blue_fault_page ON games (blue, finished_at, source, number,
    fault, reason) WHERE fault = 'blue';
CREATE INDEX IF NOT EXISTS games_orange_fault_page ON games (orange, finished_at, source, number,
    fault, reason) WHERE fault = 'orange';
DROP INDEX IF EXISTS games_blue;
DROP INDEX IF EXISTS games_orange;
DROP INDEX IF EXISTS games_reason;
"""

# The results of each two versions that met, in either colour, a row per pair, kept by triggers
# as games are written and deleted: the crosstable (which does not show colours) reads a row
# per pair of its versions instead of every game among them (about 200,000 of a million games:
# 160 ms). `first` is the lower version id, and is the blue side's when a version played itself.
# An index made before them gains them from its next writer, filled from its games in the same
# transaction as the triggers are made; a reader of such an index reads the games instead
# (`has_pairs`).
_PAIRS = """
CREATE TABLE pairs (
    first INTEGER NOT NULL,                -- the lower version id
    second INTEGER NOT NULL,
    first_wins INTEGER NOT NULL DEFAULT 0,
    second_wins INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (first, second)
) WITHOUT ROWID;
CREATE TRIGGER pairs_insert AFTER INSERT ON games BEGIN
    INSERT INTO pairs VALUES (MIN(NEW.blue, NEW.orange), MAX(NEW.blue, NEW.orange),
        NEW.result = CASE WHEN NEW.blue <= NEW.orange THEN 'blue' ELSE 'orange' END,
        NEW.result = CASE WHEN NEW.blue <= NEW.orange THEN 'orange' ELSE 'blue' END,
        NEW.result = 'draw')
        ON CONFLICT (first, second) DO UPDATE SET first_wins = first_wins + excluded.first_wins,
        second_wins = second_wins + excluded.second_wins, draws = draws + excluded.draws;
END;
CREATE TRIGGER pairs_delete AFTER DELETE ON games BEGIN
    UPDATE pairs SET
        first_wins = first_wins
            - (OLD.result = CASE WHEN OLD.blue <= OLD.orange THEN 'blue' ELSE 'orange' END),
        second_wins = second_wins
            - (OLD.result = CASE WHEN OLD.blue <= OLD.orange THEN 'orange' ELSE 'blue' END),
        draws = draws - (OLD.result = 'draw')
        WHERE first = MIN(OLD.blue, OLD.orange) AND second = MAX(OLD.blue, OLD.orange);
    DELETE FROM pairs WHERE first_wins + second_wins + draws = 0
        AND first = MIN(OLD.blue, OLD.orange) AND second = MAX(OLD.blue, OLD.orange);
END;
CREATE TRIGGER pairs_update AFTER UPDATE OF blue, orange, result ON games BEGIN
    UPDATE pairs SET
        first_wins = first_wins
            - (OLD.result = CASE WHEN OLD.blue <= OLD.orange THEN 'blue' ELSE 'orange' END),
        second_wins = second_wins
            - (OLD.result = CASE WHEN OLD.blue <= OLD.orange THEN 'orange' ELSE 'blue' END),
        draws = draws - (OLD.result = 'draw')
        WHERE first = MIN(OLD.blue, OLD.orange) AND second = MAX(OLD.blue, OLD.orange);
    DELETE FROM pairs WHERE first_wins + second_wins + draws = 0
        AND first = MIN(OLD.blue, OLD.orange) AND second = MAX(OLD.blue, OLD.orange);
    INSERT INTO pairs VALUES (MIN(NEW.blue, NEW.orange), MAX(NEW.blue, NEW.orange),
        NEW.result = CASE WHEN NEW.blue <= NEW.orange THEN 'blue' ELSE 'orange' END,
        NEW.result = CASE WHEN NEW.blue <= NEW.orange THEN 'orange' ELSE 'blue' END,
        NEW.result = 'draw')
        ON CONFLICT (first, second) DO UPDATE SET first_wins = first_wins + excluded.first_wins,
        second_wins = second_wins + excluded.second_wins, draws = draws + excluded.draws;
END;
INSERT INTO pairs
    SELECT MIN(blue, orange), MAX(blue, orange),
        SUM(result = CASE WHEN blue <= orange THEN 'blue' ELSE 'orange' END),
        SUM(result = CASE WHEN blue <= orange THEN 'orange' ELSE 'blue' END), SUM(result = 'draw')
    FROM games GROUP BY MIN(blue, orange), MAX(blue, orange);
"""
_PAIR_OBJECTS = frozenset({"pairs", "pairs_insert", "pairs_delete", "pairs_update"})


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
    key: str  # the game's identity: its record's final hash (else the file's SHA-256)
    seen: str  # what its store's row said when it was read


@dataclass(frozen=True, slots=True)
class Refusal:
    """A finished game of a source that is not rated: `refused` with what checking it found,
    or a `copy` of the game whose key is `key`, already counted from another folder."""

    number: int
    seen: str  # what its store's row said when it was read
    record: str | None
    kind: str  # refused, copy
    key: str | None
    problem: str


@dataclass(frozen=True, slots=True)
class RefusedRow:
    source: str  # the source's folder
    number: int
    record: str | None
    kind: str
    problem: str


@dataclass(frozen=True, slots=True)
class RatingRow:
    version: int
    rank: int | None  # None: provisional or unbounded, not ranked
    rating: float
    low: float | None
    high: float | None
    games: int
    points: float
    los_next: float | None
    side: str = "two-sided"
    flags: str = ""
    component: int = 0


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
    low: float | None = None  # its interval at that step (Laplace's); None: no such bound
    high: float | None = None


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

    def known_games(self, path: Path) -> dict[int, str]:
        """The games read from the source at `path`, rated or refused: number -> what its
        store's row said when it was read."""
        known = {}
        for table in ("games", "refused"):
            rows = self.db.execute(
                f"SELECT {table}.number, {table}.seen FROM {table}"
                f" JOIN sources ON {table}.source = sources.id WHERE sources.path = ?",
                (str(path),),
            )
            known.update(dict(rows.fetchall()))
        return known

    def game_with_key(self, key: str) -> tuple[str, int] | None:
        """The source folder and number of the indexed game whose key is `key`, if any."""
        found = self.db.execute(
            "SELECT sources.path, number FROM games JOIN sources ON games.source = sources.id"
            " WHERE game_key = ? ORDER BY sources.position, number LIMIT 1",
            (key,),
        ).fetchone()
        return None if found is None else (str(found[0]), int(found[1]))

    def forget_orphan_copies(self) -> None:
        """Copies of a game no longer indexed (its folder left the league, or it was played
        again) are read again: they may be the copy to count now."""
        with self.db:
            self.db.execute(
                "DELETE FROM refused WHERE kind = 'copy'"
                " AND game_key NOT IN (SELECT game_key FROM games)"
            )

    def apply_source(
        self,
        source: Source,
        changed: Iterable[IndexedGame],
        gone: Iterable[int],
        refused: Iterable[Refusal] = (),
    ) -> None:
        """Record what was read of one source, in one transaction: the games read (each
        replacing what was known of its number), the games refused, the games gone."""
        changed, refused = list(changed), list(refused)
        with self.db:
            source_id = self._source_id(source)
            numbers = [*gone, *(g.number for g in changed), *(r.number for r in refused)]
            for table in ("games", "refused"):
                self.db.executemany(
                    f"DELETE FROM {table} WHERE source = ? AND number = ?",
                    [(source_id, number) for number in numbers],
                )
            rows = []
            for game in changed:
                blue, orange = self._version(game.blue, game), self._version(game.orange, game)
                rows.append(
                    (
                        source_id, game.number, source.game, blue, orange, game.result,
                        game.reason, game.fault, int(game.rated), game.plies, game.record,
                        game.started_at, game.finished_at, game.chain, game.key, game.seen,
                    )
                )  # fmt: skip
            self.db.executemany(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
            )
            self.db.executemany(
                "INSERT INTO refused VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (source_id, r.number, r.seen, r.record, r.kind, r.key, r.problem)
                    for r in refused
                ],
            )  # fmt: skip
            if numbers:  # a version may have lost its last game (to a refusal, say)
                self._forget_unplayed()

    def refused(self) -> list[RefusedRow]:
        """Every finished game of the sources that is not rated, in the league's order."""
        rows = self.db.execute(
            "SELECT sources.path, refused.number, refused.record, refused.kind, refused.problem"
            " FROM refused JOIN sources ON refused.source = sources.id"
            " ORDER BY sources.position, refused.number"
        )
        return [RefusedRow(*row) for row in rows]

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
            self.db.executemany("DELETE FROM refused WHERE source = ?", gone)
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
                "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        *(r.version, r.rank, r.rating, r.low, r.high, r.games, r.points),
                        *(r.los_next, r.side, r.flags, r.component),
                    )
                    for r in ratings
                ],
            )
            self.db.executemany(
                "INSERT INTO kinds VALUES (?, ?, ?, ?)",
                [(k.game, k.advantage, k.draw_elo, k.games) for k in kinds],
            )
            self.db.executemany(
                "INSERT INTO history (version, step, period, rating, games, low, high)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(h.version, h.step, h.period, h.rating, h.games, h.low, h.high) for h in history],
            )
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())

    def meta(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM meta").fetchall())


_TABLES = frozenset(
    {"meta", "sources", "bots", "versions", "games", "refused", "ratings", "kinds", "history"}
)
_PRAGMAS = ("PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", "PRAGMA foreign_keys = ON")


def open_index(folder: Path, *, writer: bool) -> LeagueIndex:
    """Open (a writer creates it) the index of the league in `folder`. A file that is not a
    league's index, or a damaged one, is refused with a `LeagueError` naming it; a writer
    holds the folder's lock until closed."""
    path = folder / INDEX_NAME
    if not writer and not path.is_file():
        raise LeagueError(f"{folder}: the league has no index yet (run `referee league rate`)")
    if writer:  # the index, its journals and its lock: never a link someone else planted
        try:
            refuse_links(folder, [LOCK_NAME, *(INDEX_NAME + s for s in ("", "-wal", "-shm"))])
        except PlantedLink as exc:
            raise LeagueError(f"cannot write the league: {exc}") from None
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
            if tables and _older(db, tables):
                _drop(db, tables)  # made again from the sources, which hold everything it held
                tables = set()
            if not tables:
                with db:
                    db.executescript("BEGIN;" + _SCHEMA)
                    db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
                tables = set(_TABLES)
            if tables >= _TABLES:
                _add_columns(db)
                _add_pairs(db)
                db.executescript(_INDEXES)
        elif _older(db, tables):
            raise LeagueError(
                f"{path}: made by an older referee, whose league rated games unchecked: run "
                "`referee league rate` to read its sources again"
            )
        if not tables >= _TABLES:
            raise LeagueError(f"{path}: not a league's index (it lacks the league's tables)")
    except sqlite3.DatabaseError as exc:
        db.close()
        raise LeagueError(f"{path}: cannot read the league's index: {exc}") from None
    except BaseException:
        db.close()
        raise
    return db


def missing_columns(db: sqlite3.Connection, table: str) -> set[str]:
    """The columns of `_ADDED_COLUMNS` that the index's `table` lacks (made before them)."""
    have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
    return {name for name, _ in _ADDED_COLUMNS.get(table, ()) if name not in have}


def _add_columns(db: sqlite3.Connection) -> None:
    for table, columns in _ADDED_COLUMNS.items():
        lacking = missing_columns(db, table)
        with db:
            for name, kind in columns:
                if name in lacking:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


def has_pairs(db: sqlite3.Connection) -> bool:
    """Whether the index keeps the results per pair of versions (made before them: not until
    its next writer)."""
    marks = ",".join("?" * len(_PAIR_OBJECTS))
    found = db.execute(
        f"SELECT COUNT(*) FROM sqlite_master WHERE name IN ({marks})", sorted(_PAIR_OBJECTS)
    ).fetchone()
    return int(found[0]) == len(_PAIR_OBJECTS)


def _add_pairs(db: sqlite3.Connection) -> None:
    """Make the results per pair, their triggers and their rows from the games, in one
    transaction (a part left by anything else is made again whole)."""
    if has_pairs(db):
        return
    with db:
        drop = "".join(f"DROP TRIGGER IF EXISTS {t};" for t in sorted(_PAIR_OBJECTS - {"pairs"}))
        db.executescript(f"BEGIN; {drop} DROP TABLE IF EXISTS pairs; {_PAIRS}")


def _older(db: sqlite3.Connection, tables: set[str]) -> bool:
    """Whether the index is a league's of an older schema (an index of tables that are not a
    league's is not: it is refused as such)."""
    if not tables >= _TABLES - {"refused"} or "meta" not in tables:
        return False
    found = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return found is None or str(found[0]) != str(SCHEMA_VERSION)


def _drop(db: sqlite3.Connection, tables: set[str]) -> None:
    db.execute("PRAGMA foreign_keys = OFF")  # outside a transaction, where it takes effect
    try:
        for table in sorted(tables & (_TABLES | {"pairs"})):  # the games' triggers go with them
            db.execute(f"DROP TABLE {table}")
        db.commit()
    finally:
        db.execute("PRAGMA foreign_keys = ON")


def _lock(folder: Path) -> int:
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise LeagueError(f"{folder}: another referee is updating this league right now") from None
    return fd
