"""The arena's store: its schema and pragmas, what it refuses to open, its transactions, and
its queries run off the event loop."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from referee.arena import store as store_module
from referee.arena.rows import Account, Role
from referee.arena.store import (
    SCHEMA_VERSION,
    TABLES,
    StoreError,
    create_store,
    get_state,
    open_store,
    set_state,
    stamp,
    transaction,
)

NOW = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    create_store(tmp_path / "arena.sqlite").close()
    return tmp_path / "arena.sqlite"


def add_account(db: sqlite3.Connection, username: str) -> int:
    with transaction(db):
        cursor = db.execute(
            "INSERT INTO accounts (username, display_name, role, created_at) VALUES (?, ?, ?, ?)",
            (username, username.title(), "student", stamp(NOW)),
        )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def test_a_new_store_has_every_table_wal_and_foreign_keys(path: Path) -> None:
    store = open_store(path)
    try:
        db = store.writer
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert tables >= TABLES
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        with pytest.raises(sqlite3.IntegrityError), transaction(db):
            db.execute("INSERT INTO sessions VALUES ('h', 999, 'c', 'a', 'b')")
    finally:
        store.close()
    assert not path.with_name(path.name + ".new").exists()


def test_a_store_of_a_newer_schema_is_refused_untouched(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    before = path.read_bytes()
    newer = rf"newer referee \(schema version {SCHEMA_VERSION + 1}; this referee reads"
    with pytest.raises(StoreError, match=newer):
        open_store(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("content", ["empty", "other", "garbage"])
def test_what_is_not_an_arena_store_is_refused_untouched(tmp_path: Path, content: str) -> None:
    path = tmp_path / "arena.sqlite"
    if content == "other":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE notes (text TEXT)")
        db.commit()
        db.close()
    elif content == "garbage":
        path.write_bytes(b"not a database at all" * 100)
    else:
        path.touch()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=f"{path}"):
        open_store(path)
    assert path.read_bytes() == before


def test_a_missing_store_is_named(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no arena store here"):
        open_store(tmp_path / "arena.sqlite")
    create_store(tmp_path / "arena.sqlite").close()
    with pytest.raises(StoreError, match="there already"):
        create_store(tmp_path / "arena.sqlite")


def test_an_older_store_is_migrated_in_one_step(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setitem(
        store_module.MIGRATIONS, SCHEMA_VERSION + 1, "ALTER TABLE accounts ADD COLUMN note TEXT"
    )
    store = open_store(path)
    try:
        columns = {r[1] for r in store.writer.execute("PRAGMA table_info(accounts)")}
        assert "note" in columns
        assert store.writer.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    finally:
        store.close()


def test_a_failed_transaction_leaves_nothing(path: Path) -> None:
    store = open_store(path)
    try:
        db = store.writer
        with pytest.raises(RuntimeError), transaction(db):
            db.execute(
                "INSERT INTO accounts (username, display_name, role, created_at)"
                " VALUES ('x', 'X', 'student', 'now')"
            )
            raise RuntimeError("half way")
        assert db.execute("SELECT count(*) FROM accounts").fetchone()[0] == 0
        assert not db.in_transaction
    finally:
        store.close()


def test_the_schema_keeps_one_active_version_per_account(path: Path) -> None:
    store = open_store(path)
    try:
        db = store.writer
        alice = add_account(db, "alice")
        with transaction(db):
            db.execute(
                "INSERT INTO uploads (sha256, size, name, account_id, received_at)"
                " VALUES ('ab', 1, 'bot.py', ?, 'now')",
                (alice,),
            )
        insert = (
            "INSERT INTO versions (account_id, number, upload_id, status, created_at)"
            " VALUES (?, ?, 1, 'active', 'now')"
        )
        with transaction(db):
            db.execute(insert, (alice, 1))
        with pytest.raises(sqlite3.IntegrityError), transaction(db):
            db.execute(insert, (alice, 2))
    finally:
        store.close()


async def test_queries_run_off_the_event_loop_and_see_each_other(path: Path) -> None:
    store = open_store(path)
    try:
        alice = await store.write(add_account, "alice")
        await store.write(set_state, "paused", "yes")
        assert await store.read(get_state, "paused") == "yes"
        assert await store.read(get_state, "frozen") is None

        def one(db: sqlite3.Connection) -> Account:
            row = db.execute(f"SELECT {Account.COLUMNS} FROM accounts WHERE id = ?", (alice,))
            return Account.of(row.fetchone())

        account = await store.read(one)
        assert (account.username, account.role, account.has_token) == ("alice", Role.STUDENT, False)
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            await store.read(set_state, "paused", "no")
    finally:
        store.close()


def test_times_compare_as_strings() -> None:
    early = stamp(datetime(2026, 9, 1, 12, 0, 0, tzinfo=UTC))
    late = stamp(datetime(2026, 9, 1, 12, 0, 0, 1, tzinfo=UTC))
    assert early < late and early.endswith("+00:00") and ".000000" in early
