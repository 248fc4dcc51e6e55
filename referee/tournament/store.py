"""The embedded store of one tournament: an SQLite file in WAL mode, committed game by game.

A tournament directory holds everything about one tournament:

    tournament.sqlite     this store: the schedule, each game's state and result
    games/0007.jsonl      the record of game 7 (`0007-2.jsonl`: its second attempt)

Games move `pending -> running -> finished`, or `-> void` when an attempt was voided (a referee
fault, an infrastructure failure, referee overload); a void game is replayed later up to a limit.
A result is committed (after its record file is synced to disk) the moment the game ends, so a
crash, Ctrl-C or `kill -9` loses nothing finished; games found `running` when a tournament is
resumed were cut short and go back to `pending`. A finished game also keeps its record's final
hash (`referee.records`: the hash chain), which the record must still end with.

A file that is not such a store (empty, not SQLite, damaged, another program's database) is
refused with an `UnreadableStore` error naming it, wherever it is opened or read, and is never
written to; a store made before a column was added gets that column when a referee opens it for
writing. A new store is built in a side file (`tournament.sqlite.new`) and renamed into place
once it holds the whole schedule, so a store file that exists was always made whole: an empty one
was emptied by something else. The records are the source of truth: `rebuild.py` makes a new
store from them.

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

import contextlib
import fcntl
import functools
import json
import os
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from protocols.base import RENAMED_REASONS, Reason, Side
from referee.nofollow import PlantedLink, make_folder, refuse_links
from referee.records import Result, final_chain, utc_now

STORE_NAME = "tournament.sqlite"
SIDE_NAME = STORE_NAME + ".new"  # a store being made, until it is whole
LOCK_NAME = "tournament.lock"
RECORDS_DIR = "games"
SCHEMA_VERSION = 2  # 2: games.chain

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
    finished_at TEXT,
    chain TEXT                             -- the record's final hash, once committed
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


_TABLES = frozenset({"meta", "players", "games", "attempts"})
_META_KEYS = frozenset({"name", "game", "config", "schedule_key", "created_at"})
# The columns of a GameRow, named: stores made before `chain` existed lack it (read as NULL).
_GAME_COLUMNS = (
    "number, round, blue, orange, seed, state, attempts, voids, winner, reason, detail, plies,"
    " record, started_at, finished_at"
)

ScheduleRow = tuple[int, int, str, str, int]  # number, round, blue, orange, seed


class GameState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    FINISHED = "finished"
    VOID = "void"


class StoreError(Exception):
    """A store that cannot be opened or used as asked; the message says why."""


class UnreadableStore(StoreError):
    """A store file that cannot be read as the one a referee made (empty, damaged, another
    program's database, values no referee writes): refused, and never written to."""


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
    chain: str | None = None  # the record's final hash (None: not committed, or an older store)

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


@dataclass(frozen=True, slots=True)
class RestoredAttempt:
    """One attempt of a game as its record tells it (`rebuild.py`): `result` None for an
    attempt cut short (no result line)."""

    attempt: int
    result: Result | None
    started_at: str
    ended_at: str
    chain: str | None

    @property
    def outcome(self) -> str:
        if self.result is None:
            return "cut-short"
        return "void" if self.result.void else "finished"


def record_name(number: int, attempt: int) -> str:
    """The record of an attempt, relative to the tournament directory."""
    suffix = "" if attempt == 1 else f"-{attempt}"
    return f"{RECORDS_DIR}/{number:04d}{suffix}.jsonl"


V = TypeVar("V", bound="StoreView")
P = ParamSpec("P")
R = TypeVar("R")


def _guarded(method: Callable[Concatenate[V, P], R]) -> Callable[Concatenate[V, P], R]:
    """SQLite's errors from a query (a damaged file, another program's database) as a
    `StoreError` naming the store, so that every command can say so plainly."""

    def guarded(self: V, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise _unreadable(self.path, exc) from None

    functools.update_wrapper(guarded, method)  # its name and docstring
    return guarded


def _unreadable(path: Path, exc: Exception) -> UnreadableStore:
    return UnreadableStore(f"{path}: cannot read the tournament store: {exc}")


class StoreView:
    """Read-only queries on a tournament store."""

    def __init__(self, connection: sqlite3.Connection, directory: Path) -> None:
        self.db = connection
        self.directory = directory
        self.path = directory / STORE_NAME

    def close(self) -> None:
        self.db.close()

    @_guarded
    def info(self) -> TournamentInfo:
        meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        if missing := _META_KEYS - meta.keys():
            raise UnreadableStore(f"{self.path}: the store lacks {', '.join(sorted(missing))}")
        try:
            config, key = json.loads(meta["config"]), json.loads(meta["schedule_key"])
        except ValueError as exc:
            raise _unreadable(self.path, exc) from None
        return TournamentInfo(
            name=meta["name"],
            game=meta["game"],
            config=config,
            schedule_key=key,
            created_at=meta["created_at"],
        )

    @_guarded
    def players(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM players ORDER BY position")]

    @_guarded
    def games(self, state: GameState | None = None) -> list[GameRow]:
        chain = "chain" if "chain" in _columns(self.db, "games") else "NULL"
        query = f"SELECT {_GAME_COLUMNS}, {chain} FROM games"
        args: tuple[str, ...] = ()
        if state is not None:
            query, args = query + " WHERE state = ?", (state.value,)
        try:
            return [_game_row(r) for r in self.db.execute(query + " ORDER BY number", args)]
        except ValueError as exc:  # a state, colour or reason that no referee writes
            raise _unreadable(self.path, exc) from None

    @_guarded
    def attempts(self) -> list[Attempt]:
        rows = self.db.execute("SELECT * FROM attempts ORDER BY number, attempt")
        return [Attempt(*r) for r in rows]

    def record_path(self, row: GameRow) -> Path | None:
        return self.directory / row.record if row.record else None


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _game_row(r: sqlite3.Row | tuple[Any, ...]) -> GameRow:
    values = list(r)
    values[5] = GameState(values[5])
    values[8] = Side(values[8]) if values[8] else None
    values[9:10] = _reason_and_ending(values[9])
    return GameRow(*values)


_REASONS = frozenset(Reason) | RENAMED_REASONS.keys()  # older stores' names read too


def _reason_and_ending(stored: str | None) -> tuple[Reason | None, str | None]:
    """The `reason` column read back: a game's own ending is stored by its code alone (what
    people read, and what stores written before games named their endings hold too)."""
    if stored is None:
        return None, None
    if stored in _REASONS:
        return Reason(stored), None
    return Reason.GAME_ENDING, stored


def open_view(directory: str | os.PathLike[str]) -> StoreView:
    """Open a tournament directory's store read-only, checking the file as `open_store` does."""
    directory = Path(directory)  # a str is as good as a Path
    path = directory / STORE_NAME
    if not path.is_file():
        raise StoreError(f"{directory}: no tournament store ({STORE_NAME}) here")
    return StoreView(_open_checked(path, writer=False), directory)


def open_store(directory: str | os.PathLike[str], *, fresh: bool = False) -> Store:
    """Open the store for writing; one writer per directory at a time.

    A directory without a store gets a new one, built in a side file that `Store.create` moves
    into place. A directory whose store is missing while game records remain is refused: a new
    store would play those games again over their records. `fresh` builds a new store even
    where one exists (`rebuild.py`), which `Store.publish` then puts in its place.
    """
    directory = Path(directory)  # a str is as good as a Path
    path = directory / STORE_NAME
    try:
        # The directory, its records folder and the files SQLite opens by path, reached
        # without following a link someone else planted (referee/nofollow.py).
        make_folder(directory / RECORDS_DIR)
        side_files = _database_files(directory / SIDE_NAME)
        refuse_links(directory, [LOCK_NAME, *(f.name for f in _database_files(path) + side_files)])
    except PlantedLink as exc:
        raise StoreError(f"cannot write the tournament: {exc}") from None
    lock_fd = _lock(directory)
    try:
        if not fresh and path.exists():
            return Store(_open_checked(path, writer=True), directory, lock_fd)
        if not fresh and (found := len(record_files(directory))):
            raise UnreadableStore(
                f"{path}: the tournament store is missing, but {directory / RECORDS_DIR} holds "
                f"{found} game record{'s' if found > 1 else ''}"
            )
        side = directory / SIDE_NAME
        _remove_database(side)  # left by a referee that stopped while making a store
        return Store(_open_checked(side, writer=True, new=True), directory, lock_fd, side=side)
    except BaseException:
        os.close(lock_fd)
        raise


def record_files(directory: Path) -> list[Path]:
    """The game records of a tournament directory (`games/0007.jsonl`, `games/0007-2.jsonl`)."""
    return sorted((directory / RECORDS_DIR).glob("[0-9]*.jsonl"))


_WRITER_PRAGMAS = [
    "PRAGMA synchronous = FULL",  # a committed game survives a power cut
    "PRAGMA foreign_keys = ON",
]


def _open_checked(path: Path, *, writer: bool, new: bool = False) -> sqlite3.Connection:
    """Connect and check the file (SQLite's quick check, then our tables) before a writer
    changes anything in it (even the journal mode): a file without them is refused, unless it
    is a `new` store being made. An older store opened for writing gets the columns it lacks.
    SQLite's errors become an `UnreadableStore` naming the file."""
    uri = path.resolve().as_uri() + ("" if writer else "?mode=ro")
    try:
        db = sqlite3.connect(uri, uri=True, check_same_thread=False)
    except sqlite3.DatabaseError as exc:
        raise _unreadable(path, exc) from None
    try:
        db.execute("PRAGMA busy_timeout = 5000")
        _quick_check(db, path)
        holds_tournament = _check_tables(db, path)
        if not holds_tournament and not new:
            size = path.stat().st_size
            raise UnreadableStore(
                f"{path}: the tournament store is empty ({size} bytes, no tournament in it)"
            )
        if writer:
            # A store being made is one file until it is whole; then WAL lets readers watch.
            journal = "DELETE" if new else "WAL"
            for pragma in [f"PRAGMA journal_mode = {journal}", *_WRITER_PRAGMAS]:
                db.execute(pragma)
        if writer and holds_tournament:
            _migrate(db)
    except sqlite3.DatabaseError as exc:
        db.close()
        raise _unreadable(path, exc) from None
    except BaseException:
        db.close()
        raise
    return db


def _remove_database(path: Path) -> None:
    """Remove an SQLite file with its journal files, if any."""
    for name in _database_files(path):
        name.unlink(missing_ok=True)


def _database_files(path: Path) -> list[Path]:
    """An SQLite file and the journal files SQLite keeps beside it under its name."""
    return [path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal"))]


def _quick_check(db: sqlite3.Connection, path: Path) -> None:
    """SQLite's own check of every page, so that a damaged file (a truncated copy, say) is
    refused on opening rather than read in part; milliseconds for a tournament's store."""
    problems = [r[0] for r in db.execute("PRAGMA quick_check")]
    if problems != ["ok"]:
        raise UnreadableStore(f"{path}: the tournament store is damaged: {problems[0]}")


def _check_tables(db: sqlite3.Connection, path: Path) -> bool:
    """Whether the file holds a tournament (False: an empty database, a store to create);
    raises `UnreadableStore` for a database of something else."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return False
    if missing := _TABLES - tables:
        raise UnreadableStore(
            f"{path}: not a tournament store (an SQLite database without the "
            f"{', '.join(sorted(missing))} table{'s' if len(missing) > 1 else ''})"
        )
    return True


def _migrate(db: sqlite3.Connection) -> None:
    """Add the columns of later schema versions to an older store: in one transaction, and only
    what is missing, so a crash or a second open finds either the old store or the new one."""
    if "chain" in _columns(db, "games"):
        return
    db.executescript(
        "BEGIN; ALTER TABLE games ADD COLUMN chain TEXT;"
        f" UPDATE meta SET value = '{SCHEMA_VERSION}' WHERE key = 'schema_version'; COMMIT;"
    )


class Store(StoreView):
    """The one writer of a tournament store: holds the directory's lock while open."""

    def __init__(
        self,
        connection: sqlite3.Connection,
        directory: Path,
        lock_fd: int,
        *,
        side: Path | None = None,
    ) -> None:
        super().__init__(connection, directory)
        self._lock_fd = lock_fd
        self._side = side  # the side file of a store being made, until `publish`
        if side is not None:
            self.path = side

    def close(self) -> None:
        """Close it and let go of the directory; a store never published is thrown away."""
        super().close()
        if self._side is not None:
            _remove_database(self._side)
        os.close(self._lock_fd)

    def discard(self, made_directory: bool) -> bool:
        """Close a store in which no game was ever started (a run refused before its first
        game), removing it, its lock and its empty records folder, and the directory itself when
        this run `made_directory`: a failed first run leaves nothing behind. A store with any
        attempt, or records, is only closed. Whether it was removed."""
        records = self.directory / RECORDS_DIR
        started = self.db.execute("SELECT 1 FROM games WHERE attempts > 0 LIMIT 1").fetchone()
        if started is not None or any(records.iterdir()):
            self.close()
            return False
        StoreView.close(self)
        _remove_database(self.path)
        records.rmdir()
        (self.directory / LOCK_NAME).unlink(missing_ok=True)
        os.close(self._lock_fd)
        if made_directory:
            with contextlib.suppress(OSError):  # not empty: something else was put there
                self.directory.rmdir()
        return True

    def publish(self) -> Path | None:
        """Put a store made in its side file in its place, whole (a no-op for a store that was
        opened where it is). A store file already there (`open_store(fresh=True)`) is kept
        beside it, renamed; returns where it went."""
        if self._side is None:
            return None
        final = self.directory / STORE_NAME
        self.db.close()
        kept = None
        if final.exists():
            kept = final.with_name(f"{STORE_NAME}.replaced-{utc_now():%Y%m%dT%H%M%S}")
            for old, new in zip(_database_files(final), _database_files(kept), strict=True):
                if old.exists():
                    os.replace(old, new)
        os.replace(self._side, final)
        _sync_directory(self.directory)
        self._side = None
        self.path = final
        self.db = _open_checked(final, writer=True)
        return kept

    @_guarded
    def is_new(self) -> bool:
        found = self.db.execute("SELECT name FROM sqlite_master WHERE name = 'meta'").fetchone()
        return found is None

    @_guarded
    def create(
        self,
        info: TournamentInfo,
        players: list[str],
        games: Iterable[ScheduleRow],
        *,
        publish: bool = True,
    ) -> None:
        """Write the schema, the tournament's description and its schedule, in one transaction,
        and (unless `publish` is False: more is to come first) put the store in its place.

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
        if publish:
            self.publish()

    @_guarded
    def update_config(self, config: dict[str, Any]) -> None:
        """Keep the config of the latest run (settings that do not change the schedule)."""
        with self.db:
            self.db.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(config),))

    @_guarded
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

        The record file is synced to disk first, so a committed game always has its record,
        and its final hash is kept with the result (so the record cannot be changed unseen).
        """
        path = self.directory / record_name(number, attempt)
        sync_file(path)
        state = GameState.VOID if result.void else GameState.FINISHED
        winner = result.winner.value if result.winner else None
        with self.db:
            self.db.execute(
                "UPDATE games SET state = ?, voids = voids + ?, winner = ?, reason = ?,"
                " detail = ?, plies = ?, finished_at = ?, chain = ? WHERE number = ?",
                (
                    state.value,
                    int(result.void),
                    winner,
                    result.why,
                    result.detail,
                    result.plies,
                    result.finished_at.isoformat(),
                    final_chain(path),
                    number,
                ),
            )
            record = record_name(number, attempt)
            self._log_attempt(number, attempt, state.value, result.why, result.detail, record)
        return state

    def grow(
        self, players: list[str], games: Iterable[ScheduleRow], schedule_key: dict[str, Any]
    ) -> None:
        """Add players (those not yet in the store) and games, and keep the new schedule key:
        the tournament grew (see `growth.py`). One transaction."""
        known = set(self.players())
        with self.db:
            (count,) = self.db.execute("SELECT COUNT(*) FROM players").fetchone()
            new = [name for name in players if name not in known]
            self.db.executemany("INSERT INTO players VALUES (?, ?)", enumerate(new, start=count))
            self.db.executemany(
                "INSERT INTO games (number, round, blue, orange, seed) VALUES (?, ?, ?, ?, ?)",
                games,
            )
            self.db.execute(
                "UPDATE meta SET value = ? WHERE key = 'schedule_key'", (json.dumps(schedule_key),)
            )
            self._mark_grown()

    @_guarded
    def mark_grown(self) -> None:
        """Say that games were added to the first schedule (a rebuilt tournament that grew)."""
        with self.db:
            self._mark_grown()

    def _mark_grown(self) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('grown', '1')")

    @_guarded
    def add_stage(self, games: Iterable[ScheduleRow]) -> None:
        """Add the games of a staged format's next stage (`formats/`), in one transaction: a
        crash leaves the stage stored whole or not at all, and it is asked for again."""
        with self.db:
            self.db.executemany(
                "INSERT INTO games (number, round, blue, orange, seed) VALUES (?, ?, ?, ?, ?)",
                games,
            )

    @_guarded
    def grown(self) -> bool:
        """Whether games were added to the first schedule (then it is no longer one piece)."""
        found = self.db.execute("SELECT value FROM meta WHERE key = 'grown'").fetchone()
        return found is not None

    def set_aside(self, player: str) -> list[int]:
        """`player`'s played games go back to `pending`, to be played again (after its command
        was fixed). Their attempts stay in the archive (`attempts`, and the record files): the
        next attempt of each game gets a record of its own. Returns the games' numbers."""
        with self.db:
            rows = self.db.execute(
                "SELECT number FROM games WHERE (blue = ? OR orange = ?)"
                " AND state IN ('finished', 'void') ORDER BY number",
                (player, player),
            ).fetchall()
            numbers = [r[0] for r in rows]
            self.db.executemany(
                "UPDATE games SET state = 'pending', voids = 0, winner = NULL, reason = NULL,"
                " detail = NULL, plies = NULL, finished_at = NULL, chain = NULL WHERE number = ?",
                [(n,) for n in numbers],
            )
        return numbers

    @_guarded
    def restore(self, number: int, attempts: list[RestoredAttempt]) -> None:
        """Put back what a game's records say (`rebuild.py`): every attempt, and the game's
        state after the last one (finished, void, or to play: a cut-short attempt). The next
        attempt gets the next record name, so no record is ever written over."""
        last = attempts[-1]
        finished = [a.attempt for a in attempts if a.outcome == "finished"]
        voids = sum(a.outcome == "void" and a.attempt > max(finished, default=0) for a in attempts)
        result = last.result
        state = {"finished": "finished", "void": "void", "cut-short": "pending"}[last.outcome]
        with self.db:
            for a in attempts:
                why, detail = (a.result.why, a.result.detail) if a.result else (None, None)
                self.db.execute(
                    "INSERT OR REPLACE INTO attempts VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (number, a.attempt, a.outcome, why, detail,
                     record_name(number, a.attempt), a.ended_at),
                )  # fmt: skip
            self.db.execute(
                "UPDATE games SET state = ?, attempts = ?, voids = ?, winner = ?, reason = ?,"
                " detail = ?, plies = ?, record = ?, started_at = ?, finished_at = ?, chain = ?"
                " WHERE number = ?",
                (
                    state,
                    last.attempt,
                    voids,
                    result.winner.value if result and result.winner else None,
                    result.why if result else None,
                    result.detail if result else None,
                    result.plies if result else None,
                    record_name(number, last.attempt),
                    last.started_at,
                    result.finished_at.isoformat() if result else None,
                    last.chain if result else None,
                    number,
                ),
            )

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
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreError(
            f"{directory}: another referee is running this tournament right now"
        ) from None
    return fd


def _sync_directory(directory: Path) -> None:
    """Make a rename in `directory` survive a power cut."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_file(path: Path) -> None:
    """Make a file's contents survive a power cut (a record before its result is committed)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
