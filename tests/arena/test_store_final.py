"""The store's tables of the final and its grades: a store made before them gets them when it
is opened."""

from __future__ import annotations

from pathlib import Path

from referee.arena.store import SCHEMA_VERSION, STORE_NAME, open_store
from tests.arena.old_stores import store_of_version


def test_an_older_store_gets_the_final_s_tables(tmp_path: Path) -> None:
    """A store made before the final (schema 1) is brought up to date when opened."""
    path = tmp_path / STORE_NAME
    store_of_version(path, 1)
    store = open_store(path)
    try:
        db = store.writer
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        columns = [r[1] for r in db.execute("PRAGMA table_info(grades)")]
        assert columns[-3:] == ["rank", "games", "faults"]
        assert db.execute("SELECT COUNT(*) FROM finalists").fetchone() == (0,)
    finally:
        store.close()
