"""The store's schema versions form one line: a store of any earlier version, with rows in it,
is brought up to the current schema when it is opened, and ends with exactly the tables,
columns, indexes and triggers of a store made new, its rows kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.arena.store import MIGRATIONS, SCHEMA_VERSION, create_store, open_store
from tests.arena.old_stores import store_of_version


def shape(db: sqlite3.Connection) -> dict[str, object]:
    """What a schema is made of, whatever order its columns were added in."""
    found: dict[str, object] = {}
    for kind, name, table in db.execute(
        "SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    ):
        if kind == "table":
            columns = db.execute(f"PRAGMA table_info({name})").fetchall()
            keys = db.execute(f"PRAGMA foreign_key_list({name})").fetchall()
            found[name] = (
                sorted((c[1], c[2], c[3], c[4], c[5]) for c in columns),
                sorted((k[2], k[3], k[4]) for k in keys),
            )
        else:
            found[f"{kind} {name}"] = table
    return found


def test_the_versions_are_one_line() -> None:
    assert sorted(MIGRATIONS) == list(range(2, SCHEMA_VERSION + 1))


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_a_store_of_an_earlier_version_becomes_a_new_one(tmp_path: Path, version: int) -> None:
    new = create_store(tmp_path / "new.sqlite")
    try:
        wanted = shape(new.writer)
    finally:
        new.close()
    path = tmp_path / "old.sqlite"
    store_of_version(path, version)
    store = open_store(path)
    try:
        db = store.writer
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert shape(db) == wanted
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 2
        assert db.execute("SELECT grade FROM grades").fetchall() == [("A",)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        store.close()
