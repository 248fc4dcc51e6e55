"""The embedded store of one tournament: an SQLite file in WAL mode, committed game by game.

A tournament directory holds everything about one tournament:

    tournament.sqlite     this store: the schedule, each game's state and result
    games/0007.jsonl      the record of game 7 (`0007-2.jsonl`: its second attempt)

Games move `pending -> running -> finished`, or `-> void` when an attempt was voided (a referee
fault, an infrastructure failure, referee overload); a void game is replayed later up to a limit.
A result is committed (after its record file is synced to disk) the moment the game ends, so a
crash, Ctrl-C or `kill -9` loses nothing finished; games found `running` when a tournament is
resumed were cut short and go back to `pending`.

Read-only API, for viewers such as a web view of a tournament directory (safe to use while a
tournament runs; WAL lets readers and the one writer work at the same time):

    view = open_view(directory)      # StoreView; raises StoreError if there is no store
    view.info()                      # TournamentInfo: name, game, config, created_at
    view.players()                   # player names in config order
    view.games()                     # list[GameRow]: schedule, state, result, record path
    view.attempts()                  # list[Attempt]: every finished, void or cut-short attempt
    view.record_path(row)            # absolute path of a game's record, or None
    view.close()
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from protocols.base import Reason, Side
from referee.records import Result, utc_now

STORE_NAME = "tournament.sqlite"
LOCK_NAME = "tournament.lock"
RECORDS_DIR = "games"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE players (position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE games (
    number INTEGER PRIMARY KEY,
    round INTEGER NOT NULL,
    blue TEXT NOT NULL REFERENCES players(name),
    orange TEXT NOT NULL REFERENCES players(name),
    seed INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'running', 'finished', 'void')),
    attempts INTEGER NOT NULL DEFAULT 0,   -- attempts started
    voids INTEGER NOT NULL DEFAULT 0,      -- attempts voided
    winner TEXT CHECK (winner IN ('blue', 'orange')),
    reason TEXT,                           -- a Reason, or the game's own ending (Result.why)
    detail TEXT,
    plies INTEGER,
    record TEXT,                           -- relative to the tournament directory
    started_at TEXT,
    finished_at TEXT
);
CREATE TABLE attempts (
    number INTEGER NOT NULL REFERENCES games(number),
    attempt INTEGER NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('finished', 'void', 'cut-short')),
    reason TEXT,                           -- as in games
    detail TEXT,
    record TEXT NOT NULL,
    ended_at TEXT NOT NULL,
    PRIMARY KEY (number, attempt)
);
"""


ScheduleRow = tuple[int, int, str, str, int]  # number, round, blue, orange, seed


class GameState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    FINISHED = "finished"
    VOID = "void"


class StoreError(Exception):
    """A store that cannot be opened or used as asked; the message says why."""


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    name: str
    game: str
    config: dict[str, Any]  # the config as validated when the tournament was created
    schedule_key: dict[str, Any]
    created_at: str


@dataclass(frozen=True, slots=True)
class GameRow:
    """One scheduled game and, once played, its result (`winner` None: a draw; `ending` the
    game's own ending when `reason` is game-ending)."""

    number: int
    round: int
    blue: str
    orange: str
    seed: int
    state: GameState
    attempts: int
    voids: int
    winner: Side | None
    reason: Reason | None
    ending: str | None
    detail: str | None
    plies: int | None
    record: str | None
    started_at: str | None
    finished_at: str | None

    @property
    def winner_name(self) -> str | None:
        if self.winner is None:
            return None
        return self.blue if self.winner is Side.BLUE else self.orange


@dataclass(frozen=True, slots=True)
class Attempt:
    number: int
    attempt: int
    outcome: str  # finished, void, cut-short (the referee stopped mid-game)
    reason: str | None  # as people read it: a reason, or the game's own ending
    detail: str | None
    record: str
    ended_at: str


def record_name(number: int, attempt: int) -> str:
    """The record of an attempt, relative to the tournament directory."""
    suffix = "" if attempt == 1 else f"-{attempt}"
    return f"{RECORDS_DIR}/{number:04d}{suffix}.jsonl"


class StoreView:
    """Read-only queries on a tournament store."""

    def __init__(self, connection: sqlite3.Connection, directory: Path) -> None:
        self.db = connection
        self.directory = directory

    def close(self) -> None:
        self.db.close()

    def info(self) -> TournamentInfo:
        meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        return TournamentInfo(
            name=meta["name"],
            game=meta["game"],
            config=json.loads(meta["config"]),
            schedule_key=json.loads(meta["schedule_key"]),
            created_at=meta["created_at"],
        )

    def players(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM players ORDER BY position")]

    def games(self, state: GameState | None = None) -> list[GameRow]:
        query = "SELECT * FROM games"
        args: tuple[str, ...] = ()
        if state is not None:
            query, args = query + " WHERE state = ?", (state.value,)
        return [_game_row(r) for r in self.db.execute(query + " ORDER BY number", args)]

    def attempts(self) -> list[Attempt]:
        rows = self.db.execute("SELECT * FROM attempts ORDER BY number, attempt")
        return [Attempt(*r) for r in rows]

    def record_path(self, row: GameRow) -> Path | None:
        return self.directory / row.record if row.record else None


def _game_row(r: sqlite3.Row | tuple[Any, ...]) -> GameRow:
    values = list(r)
    values[5] = GameState(values[5])
    values[8] = Side(values[8]) if values[8] else None
    values[9:10] = _reason_and_ending(values[9])
    return GameRow(*values)


_REASONS = frozenset(Reason)


def _reason_and_ending(stored: str | None) -> tuple[Reason | None, str | None]:
    """The `reason` column read back: a game's own ending is stored by its code alone (what
    people read, and what stores written before games named their endings hold too)."""
    if stored is None:
        return None, None
    if stored in _REASONS:
        return Reason(stored), None
    return Reason.GAME_ENDING, stored


def open_view(directory: Path) -> StoreView:
    """Open a tournament directory's store read-only."""
    path = directory / STORE_NAME
    if not path.is_file():
        raise StoreError(f"{directory}: no tournament store ({STORE_NAME}) here")
    db = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, check_same_thread=False)
    db.execute("PRAGMA busy_timeout = 5000")
    return StoreView(db, directory)


def open_store(directory: Path) -> Store:
    """Open (creating if needed) the store for writing; one writer per directory at a time."""
    (directory / RECORDS_DIR).mkdir(parents=True, exist_ok=True)
    lock_fd = _lock(directory)
    db = sqlite3.connect(directory / STORE_NAME, check_same_thread=False)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")  # a committed game survives a power cut
    db.execute("PRAGMA busy_timeout = 5000")
    db.execute("PRAGMA foreign_keys = ON")
    return Store(db, directory, lock_fd)


class Store(StoreView):
    """The one writer of a tournament store: holds the directory's lock while open."""

    def __init__(self, connection: sqlite3.Connection, directory: Path, lock_fd: int) -> None:
        super().__init__(connection, directory)
        self._lock_fd = lock_fd

    def close(self) -> None:
        super().close()
        os.close(self._lock_fd)

    def is_new(self) -> bool:
        found = self.db.execute("SELECT name FROM sqlite_master WHERE name = 'meta'").fetchone()
        return found is None

    def create(
        self, info: TournamentInfo, players: list[str], games: Iterable[ScheduleRow]
    ) -> None:
        """Write the schema, the tournament's description and its schedule, in one transaction.

        `games` are (number, round, blue, orange, seed) tuples.
        """
        meta = {
            "schema_version": str(SCHEMA_VERSION),
            "name": info.name,
            "game": info.game,
            "config": json.dumps(info.config),
            "schedule_key": json.dumps(info.schedule_key),
            "created_at": info.created_at,
        }
        with self.db:
            self.db.executescript("BEGIN;" + _SCHEMA)
            self.db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
            self.db.executemany("INSERT INTO players VALUES (?, ?)", enumerate(players))
            self.db.executemany(
                "INSERT INTO games (number, round, blue, orange, seed) VALUES (?, ?, ?, ?, ?)",
                games,
            )

    def update_config(self, config: dict[str, Any]) -> None:
        """Keep the config of the latest run (settings that do not change the schedule)."""
        with self.db:
            self.db.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(config),))

    def recover(self) -> list[int]:
        """Games left `running` by a referee that stopped mid-game go back to `pending`."""
        with self.db:
            rows = self.db.execute(
                "SELECT number, attempts, record FROM games WHERE state = 'running'"
            ).fetchall()
            for number, attempt, record in rows:
                self._log_attempt(number, attempt, "cut-short", None, None, record)
            self.db.execute("UPDATE games SET state = 'pending' WHERE state = 'running'")
        return [r[0] for r in rows]

    def start(self, number: int) -> tuple[int, str]:
        """Mark a game running; returns the attempt number and its record's relative path."""
        with self.db:
            (attempts,) = self.db.execute(
                "SELECT attempts FROM games WHERE number = ?", (number,)
            ).fetchone()
            attempt = attempts + 1
            record = record_name(number, attempt)
            self.db.execute(
                "UPDATE games SET state = 'running', attempts = ?, record = ?, started_at = ?"
                " WHERE number = ?",
                (attempt, record, utc_now().isoformat(), number),
            )
        return attempt, record

    def finish(self, number: int, attempt: int, result: Result) -> GameState:
        """Commit an attempt's result: `finished`, or `void` when the result voids the game.

        The record file is synced to disk first, so a committed game always has its record.
        """
        _sync_file(self.directory / record_name(number, attempt))
        state = GameState.VOID if result.void else GameState.FINISHED
        winner = result.winner.value if result.winner else None
        with self.db:
            self.db.execute(
                "UPDATE games SET state = ?, voids = voids + ?, winner = ?, reason = ?,"
                " detail = ?, plies = ?, finished_at = ? WHERE number = ?",
                (
                    state.value,
                    int(result.void),
                    winner,
                    result.why,
                    result.detail,
                    result.plies,
                    result.finished_at.isoformat(),
                    number,
                ),
            )
            record = record_name(number, attempt)
            self._log_attempt(number, attempt, state.value, result.why, result.detail, record)
        return state

    def release(self, number: int, attempt: int) -> None:
        """An attempt cut short by Ctrl-C: the game goes back to `pending` for the next run."""
        with self.db:
            record = record_name(number, attempt)
            self._log_attempt(number, attempt, "cut-short", Reason.INTERRUPTED.value, None, record)
            self.db.execute(
                "UPDATE games SET state = 'pending' WHERE number = ? AND state = 'running'",
                (number,),
            )

    def _log_attempt(
        self,
        number: int,
        attempt: int,
        outcome: str,
        reason: str | None,
        detail: str | None,
        record: str,
    ) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO attempts VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                number,
                attempt,
                outcome,
                reason,
                detail,
                record,
                utc_now().isoformat(),
            ),
        )


def _lock(directory: Path) -> int:
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreError(
            f"{directory}: another referee is running this tournament right now"
        ) from None
    return fd


def _sync_file(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
