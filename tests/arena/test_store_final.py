"""The store's tables of the final and its grades: a store made before them gets them when it
is opened."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from referee.arena.folder import new_arena
from referee.arena.store import SCHEMA_VERSION, STORE_NAME, open_store


def test_an_older_store_gets_the_final_s_tables(tmp_path: Path) -> None:
    """A store made before the final (schema 1) is brought up to date when opened."""
    new_arena(tmp_path / "ar", game="tic-tac-toe")
    path = tmp_path / "ar" / STORE_NAME
    with sqlite3.connect(path) as db:
        db.executescript(
            "DROP TABLE finalists; DROP TABLE grades; CREATE TABLE grades (account_id INTEGER"
            " PRIMARY KEY REFERENCES accounts(id), version_id INTEGER REFERENCES versions(id),"
            " points REAL NOT NULL, grade TEXT NOT NULL, computed_at TEXT NOT NULL);"
            " PRAGMA user_version = 1;"
        )
    store = open_store(path)
    try:
        db = store.writer
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        columns = [r[1] for r in db.execute("PRAGMA table_info(grades)")]
        assert columns[-3:] == ["rank", "games", "faults"]
        assert db.execute("SELECT COUNT(*) FROM finalists").fetchone() == (0,)
    finally:
        store.close()
