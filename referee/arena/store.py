"""The arena's store: one SQLite file (WAL, foreign keys on, `synchronous = FULL` so that a
committed result survives a power cut), its schema versioned by `PRAGMA user_version`.

Every query is a plain function of a `sqlite3.Connection` in the module of its area
(accounts.py, sessions.py, ratelimits.py, audit.py, ...); one that writes opens its own short
transaction with `transaction(db)`. A process has one writer connection and one reader
connection (WAL: reads never wait for a commit's sync), each used by one thread at a time:

    store = open_store(path)
    account = await store.read(find_account, "alice")          # off the event loop
    await store.write(record_failure, ["login:alice"], now)     # one writer at a time
    with transaction(store.writer): ...                         # the same, synchronously

A file that is not an arena's store (empty, another program's database, damaged) is refused
with a `StoreError` naming it and never written to; so is a store of a newer schema than this
referee knows. An older one is brought up to date in one transaction (`MIGRATIONS`). Every time
is UTC ISO-8601 with microseconds (`stamp`), so that times compare as strings.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

import trio

STORE_NAME = "arena.sqlite"
SCHEMA_VERSION = 4
# `PRAGMA application_id`: marks the file as an arena's store ("RfA1").
APPLICATION_ID = 0x52664131

# Ratings over time (`ratings` has the last fit only): each version's rating after the fits that
# moved it (ratings.store_ratings), for rating histories and the leaderboard's trends.
RATING_HISTORY = """
CREATE TABLE rating_history (
    version_id INTEGER NOT NULL REFERENCES versions(id),
    rating REAL NOT NULL,
    low REAL,
    high REAL,
    games INTEGER NOT NULL,
    points REAL NOT NULL,
    flags TEXT NOT NULL DEFAULT '',
    rank INTEGER,
    computed_at TEXT NOT NULL
);
CREATE INDEX rating_history_by_version ON rating_history(version_id, computed_at);
"""
SCHEMA = (
    """
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('staff', 'student')),
    email TEXT,
    password_hash TEXT,                  -- argon2id; NULL: no password set yet
    invite_hash TEXT UNIQUE,             -- SHA-256 of the invite token; NULL: none pending
    invite_expires TEXT,
    token_hash TEXT UNIQUE,              -- SHA-256 of the API token; NULL: none
    created_at TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1))
);
CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,            -- SHA-256 of the session id the cookie carries
    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    csrf TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX sessions_by_account ON sessions(account_id);
CREATE TABLE attempts (                  -- rate-limited events: login:USER, login-ip:ADDR, ...
    key TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX attempts_by_key ON attempts(key, at);
CREATE TABLE uploads (
    id INTEGER PRIMARY KEY,
    sha256 TEXT NOT NULL,                -- the file uploads/SHA256 (two uploads may share it)
    size INTEGER NOT NULL,
    name TEXT NOT NULL,                  -- the file name as uploaded (shown escaped)
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    received_at TEXT NOT NULL
);
CREATE INDEX uploads_by_account ON uploads(account_id);
CREATE TABLE versions (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    number INTEGER NOT NULL,             -- 1, 2, ... per account
    upload_id INTEGER NOT NULL REFERENCES uploads(id),
    status TEXT NOT NULL DEFAULT 'received' CHECK (status IN ('received', 'building',
        'checking', 'active', 'failed', 'superseded', 'disqualified')),
    problem TEXT,
    build_log TEXT,
    check_log TEXT,
    command TEXT,
    capabilities TEXT,                   -- JSON list of protocol extensions
    content_hash TEXT,
    created_at TEXT NOT NULL,
    checked_at TEXT,
    activated_at TEXT,
    late INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)),
    UNIQUE (account_id, number)
);
-- At most one active version per account.
CREATE UNIQUE INDEX one_active_version ON versions(account_id) WHERE status = 'active';
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('placement', 'ladder', 'rerun')),
    blue INTEGER NOT NULL REFERENCES versions(id),
    orange INTEGER NOT NULL REFERENCES versions(id),
    seed INTEGER NOT NULL,
    opening TEXT,                        -- JSON list of the opening's moves, or NULL
    state TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'running', 'done', 'void')),
    attempt INTEGER NOT NULL DEFAULT 0,
    record TEXT,                         -- relative to the arena's folder
    winner TEXT CHECK (winner IN ('blue', 'orange')),
    reason TEXT,
    plies INTEGER,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    detail TEXT,
    replaces INTEGER REFERENCES games(id),  -- a void game's replay, or a re-run's original
    chain TEXT,                          -- the record's final hash, once committed
    CHECK (blue <> orange)
);
CREATE INDEX games_by_state ON games(state);
CREATE INDEX games_by_blue ON games(blue);
CREATE INDEX games_by_orange ON games(orange);
CREATE TABLE ratings (                   -- a cache of the last fit, reproducible from games
    version_id INTEGER PRIMARY KEY REFERENCES versions(id),
    rating REAL NOT NULL,
    low REAL,
    high REAL,
    games INTEGER NOT NULL,
    points REAL NOT NULL,
    flags TEXT NOT NULL DEFAULT '',      -- e.g. 'provisional'
    rank INTEGER,                        -- NULL: not ranked
    computed_at TEXT NOT NULL
);
CREATE TABLE audit (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    account_id INTEGER REFERENCES accounts(id),  -- NULL: the command line
    action TEXT NOT NULL,
    target TEXT,
    detail TEXT
);
CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE grades (
    account_id INTEGER PRIMARY KEY REFERENCES accounts(id),
    version_id INTEGER REFERENCES versions(id),
    points REAL NOT NULL,
    grade TEXT NOT NULL,
    computed_at TEXT NOT NULL,
    rank INTEGER,                        -- among the students; NULL: did not play
    games INTEGER NOT NULL DEFAULT 0,
    faults INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE finalists (                 -- the final's players: each student's pinned version
    account_id INTEGER PRIMARY KEY REFERENCES accounts(id),
    version_id INTEGER REFERENCES versions(id),  -- NULL: absent (no active version)
    player TEXT NOT NULL UNIQUE,         -- its name in the final's tournament (the username)
    content_hash TEXT,                   -- its player's content hash when the final was written
    pinned_at TEXT NOT NULL
);
"""
    + RATING_HISTORY
)
# What version 4 added for the ladder (besides the games' `replaces` and `chain`): its indexes
# and counts of the games kept by triggers, so that the scheduler and the rating fit read a row
# per pair of versions instead of every game of the term.
LADDER_SCHEMA = """
CREATE INDEX games_by_replaces ON games(replaces);
CREATE INDEX games_by_created ON games(created_at);
CREATE TABLE pair_games (               -- per (blue, orange), kept by the triggers below
    blue INTEGER NOT NULL,
    orange INTEGER NOT NULL,
    live INTEGER NOT NULL DEFAULT 0,     -- games not void: pending, running or done
    blue_wins INTEGER NOT NULL DEFAULT 0,  -- done games, by result
    orange_wins INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (blue, orange)
) WITHOUT ROWID;
CREATE TABLE version_games (            -- per version: its games not void (the triggers')
    version_id INTEGER PRIMARY KEY,
    live INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE ladder_changes (           -- bumped whenever the games that count change
    id INTEGER PRIMARY KEY CHECK (id = 1),
    results INTEGER NOT NULL
);
INSERT INTO ladder_changes VALUES (1, 0);
CREATE TRIGGER games_counted_insert AFTER INSERT ON games BEGIN
    INSERT OR IGNORE INTO pair_games (blue, orange) VALUES (NEW.blue, NEW.orange);
    UPDATE pair_games SET live = live + (NEW.state != 'void'),
        blue_wins = blue_wins + (NEW.state = 'done' AND NEW.winner IS 'blue'),
        orange_wins = orange_wins + (NEW.state = 'done' AND NEW.winner IS 'orange'),
        draws = draws + (NEW.state = 'done' AND NEW.winner IS NULL)
        WHERE blue = NEW.blue AND orange = NEW.orange;
    INSERT OR IGNORE INTO version_games (version_id) VALUES (NEW.blue), (NEW.orange);
    UPDATE version_games SET live = live + (NEW.state != 'void')
        WHERE version_id IN (NEW.blue, NEW.orange);
    UPDATE ladder_changes SET results = results + (NEW.state = 'done');
END;
CREATE TRIGGER games_counted_update AFTER UPDATE OF state, winner, blue, orange ON games BEGIN
    UPDATE pair_games SET live = live - (OLD.state != 'void'),
        blue_wins = blue_wins - (OLD.state = 'done' AND OLD.winner IS 'blue'),
        orange_wins = orange_wins - (OLD.state = 'done' AND OLD.winner IS 'orange'),
        draws = draws - (OLD.state = 'done' AND OLD.winner IS NULL)
        WHERE blue = OLD.blue AND orange = OLD.orange;
    UPDATE version_games SET live = live - (OLD.state != 'void')
        WHERE version_id IN (OLD.blue, OLD.orange);
    INSERT OR IGNORE INTO pair_games (blue, orange) VALUES (NEW.blue, NEW.orange);
    UPDATE pair_games SET live = live + (NEW.state != 'void'),
        blue_wins = blue_wins + (NEW.state = 'done' AND NEW.winner IS 'blue'),
        orange_wins = orange_wins + (NEW.state = 'done' AND NEW.winner IS 'orange'),
        draws = draws + (NEW.state = 'done' AND NEW.winner IS NULL)
        WHERE blue = NEW.blue AND orange = NEW.orange;
    INSERT OR IGNORE INTO version_games (version_id) VALUES (NEW.blue), (NEW.orange);
    UPDATE version_games SET live = live + (NEW.state != 'void')
        WHERE version_id IN (NEW.blue, NEW.orange);
    UPDATE ladder_changes SET results = results + (OLD.state = 'done' OR NEW.state = 'done');
END;
CREATE TRIGGER games_counted_delete AFTER DELETE ON games BEGIN
    UPDATE pair_games SET live = live - (OLD.state != 'void'),
        blue_wins = blue_wins - (OLD.state = 'done' AND OLD.winner IS 'blue'),
        orange_wins = orange_wins - (OLD.state = 'done' AND OLD.winner IS 'orange'),
        draws = draws - (OLD.state = 'done' AND OLD.winner IS NULL)
        WHERE blue = OLD.blue AND orange = OLD.orange;
    UPDATE version_games SET live = live - (OLD.state != 'void')
        WHERE version_id IN (OLD.blue, OLD.orange);
    UPDATE ladder_changes SET results = results + (OLD.state = 'done');
END;
"""
SCHEMA += LADDER_SCHEMA
TABLES = frozenset(
    {"accounts", "sessions", "attempts", "uploads", "versions", "games", "ratings", "audit"}
    | {"state", "grades"}
)
# Schema version N-1 -> N, applied in order in one transaction.
MIGRATIONS: dict[int, str] = {
    # 2: the final's pinned versions, and the grades' rank, games and faults.
    2: """
    CREATE TABLE finalists (
        account_id INTEGER PRIMARY KEY REFERENCES accounts(id),
        version_id INTEGER REFERENCES versions(id),
        player TEXT NOT NULL UNIQUE,
        content_hash TEXT,
        pinned_at TEXT NOT NULL
    );
    ALTER TABLE grades ADD COLUMN rank INTEGER;
    ALTER TABLE grades ADD COLUMN games INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE grades ADD COLUMN faults INTEGER NOT NULL DEFAULT 0;
    """,
    # 3: the ratings' history (rating histories and trends).
    3: RATING_HISTORY,
    # 4: the ladder: a game's replay or re-run names the game it replaces, a committed game
    # keeps its record's final hash; the ladder's tables, counts and triggers, the counts
    # filled from the games already there.
    4: """
ALTER TABLE games ADD COLUMN replaces INTEGER REFERENCES games(id);
ALTER TABLE games ADD COLUMN chain TEXT;
"""
    + LADDER_SCHEMA
    + """
INSERT INTO pair_games
    SELECT blue, orange, SUM(state != 'void'), SUM(state = 'done' AND winner IS 'blue'),
        SUM(state = 'done' AND winner IS 'orange'), SUM(state = 'done' AND winner IS NULL)
    FROM games GROUP BY blue, orange;
INSERT INTO version_games
    SELECT version, SUM(live) FROM (
        SELECT blue AS version, state != 'void' AS live FROM games
        UNION ALL SELECT orange, state != 'void' FROM games
    ) GROUP BY version;
""",
}
_PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",  # a committed result survives a power cut
    "PRAGMA foreign_keys = ON",
)

P = ParamSpec("P")
R = TypeVar("R")
Query = Callable[Concatenate[sqlite3.Connection, P], R]


class StoreError(Exception):
    """A store that cannot be opened or used; the message names the file and says why."""


def stamp(moment: datetime) -> str:
    """A time as the store keeps it: UTC, ISO-8601, always with microseconds."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parse_stamp(text: str) -> datetime:
    return datetime.fromisoformat(text)


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction, taken at once (`BEGIN IMMEDIATE`: no upgrade that could fail half
    way), committed at the end of the block, rolled back on any exception."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.rollback()
        raise
    db.commit()


@contextlib.contextmanager
def snapshot(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Several reads that see one state of the store."""
    db.execute("BEGIN")
    try:
        yield db
    finally:
        db.rollback()


class ArenaStore:
    """The store opened by this process: a writer and a reader connection, each used by one
    thread at a time (`read` and `write` run a query in a worker thread under its lock)."""

    def __init__(self, path: Path, writer: sqlite3.Connection, reader: sqlite3.Connection):
        self.path = path
        self.writer = writer
        self.reader = reader
        self._write_lock = trio.CapacityLimiter(1)
        self._read_lock = trio.CapacityLimiter(1)

    async def write(self, query: Query[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run `query(writer, *args, **kwargs)` in a thread; it opens its own transaction. A
        cancelled caller waits for it: a transaction is never left half done."""
        call = functools.partial(query, self.writer, *args, **kwargs)
        return await trio.to_thread.run_sync(call, limiter=self._write_lock)

    async def read(self, query: Query[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run `query(reader, *args, **kwargs)` in a thread (the reader cannot write)."""
        call = functools.partial(query, self.reader, *args, **kwargs)
        return await trio.to_thread.run_sync(call, limiter=self._read_lock)

    def close(self) -> None:
        self.reader.close()
        self.writer.close()


def create_store(path: Path) -> ArenaStore:
    """A new, empty store at `path` (which must not exist): built in a side file and renamed
    into place once whole, so a store that exists always has its whole schema."""
    if path.exists():
        raise StoreError(f"{path}: a store is there already")
    side = path.with_name(path.name + ".new")
    for leftover in (side, *(side.with_name(side.name + s) for s in ("-wal", "-shm"))):
        leftover.unlink(missing_ok=True)
    # The store holds password hashes: readable by its owner alone (SQLite gives its -wal and
    # -shm files the same mode).
    os.close(os.open(side, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    db = sqlite3.connect(side, isolation_level=None)
    try:
        db.executescript(
            f"BEGIN; {SCHEMA}; PRAGMA application_id = {APPLICATION_ID};"
            f" PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
        )
    finally:
        db.close()
    os.replace(side, path)
    return open_store(path)


def open_store(path: Path) -> ArenaStore:
    """Open the store at `path` for this process (migrated if older); `StoreError` if it is
    missing or not an arena's store this referee can read."""
    if not path.is_file():
        raise StoreError(f"{path}: no arena store here (see `referee arena new`)")
    writer = _connect(path)
    try:
        _check(writer, path)
        for pragma in _PRAGMAS:
            writer.execute(pragma)
        _migrate(writer)
        reader = _connect(path)
        reader.execute("PRAGMA query_only = ON")
    except sqlite3.DatabaseError as exc:
        writer.close()
        raise StoreError(f"{path}: cannot read the arena store: {exc}") from None
    except BaseException:
        writer.close()
        raise
    return ArenaStore(path, writer, reader)


def _connect(path: Path) -> sqlite3.Connection:
    try:
        # Autocommit: every write says where its transaction begins (`transaction`).
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA busy_timeout = 5000")  # another process writing (`arena accounts`)
        db.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: cannot open the arena store: {exc}") from None
    return db


def _check(db: sqlite3.Connection, path: Path) -> None:
    """Refuse what is not an arena's store, or one of a schema newer than this referee's."""
    application = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if application != APPLICATION_ID or not tables >= TABLES:
        what = "an empty database" if not tables else "another program's database"
        raise StoreError(f"{path}: not an arena store ({what})")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: the store was made by a newer referee (schema version {version}; this "
            f"referee reads up to {SCHEMA_VERSION}): upgrade the referee to open it"
        )
    if version < 1:
        raise StoreError(f"{path}: the store has no schema version (user_version {version})")


def _migrate(db: sqlite3.Connection) -> None:
    """Bring an older store up to `SCHEMA_VERSION`, all steps in one transaction."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    with transaction(db):
        for step in range(version + 1, SCHEMA_VERSION + 1):
            for statement in statements(MIGRATIONS[step]):
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def statements(script: str) -> list[str]:
    """The statements of an SQL script, one by one (a trigger's body holds semicolons too)."""
    found: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            found.append(pending.strip())
            pending = ""
    if pending.strip():
        found.append(pending.strip())
    return found


def get_state(db: sqlite3.Connection, key: str) -> str | None:
    """A value of the `state` table (paused, frozen, grades_released, ...), None if unset."""
    row = db.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_state(db: sqlite3.Connection, key: str, value: str) -> None:
    with transaction(db):
        db.execute("INSERT OR REPLACE INTO state VALUES (?, ?)", (key, value))
