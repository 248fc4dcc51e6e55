"""Stores as earlier referees left them: the first schema (schema_v1.sql, frozen), its
migrations up to a version, and a few rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from referee.arena.store import APPLICATION_ID, MIGRATIONS

FIRST = Path(__file__).with_name("schema_v1.sql")
# A term's worth of rows in the first schema: two students, a version each, a game, a grade.
ROWS = """
INSERT INTO accounts (id, username, display_name, role, created_at)
    VALUES (1, 'alice', 'Alice', 'student', '2026-09-01T00:00:00Z'),
           (2, 'bob', 'Bob', 'student', '2026-09-01T00:00:00Z');
INSERT INTO uploads (id, sha256, size, name, account_id, received_at)
    VALUES (1, 'aa', 1, 'bot.py', 1, '2026-09-02T00:00:00Z'),
           (2, 'bb', 1, 'bot.py', 2, '2026-09-02T00:00:00Z');
INSERT INTO versions (id, account_id, number, upload_id, status, created_at)
    VALUES (1, 1, 1, 1, 'active', '2026-09-02T00:00:00Z'),
           (2, 2, 1, 2, 'active', '2026-09-02T00:00:00Z');
INSERT INTO games (id, kind, blue, orange, seed, state, winner, created_at)
    VALUES (1, 'ladder', 1, 2, 7, 'done', 'blue', '2026-09-03T00:00:00Z'),
           (2, 'ladder', 2, 1, 8, 'running', NULL, '2026-09-03T00:00:00Z');
INSERT INTO grades (account_id, version_id, points, grade, computed_at)
    VALUES (1, 1, 10, 'A', '2026-12-16T00:00:00Z');
"""


def store_of_version(path: Path, version: int) -> None:
    """A store as a referee of schema `version` left it: the first schema, its migrations up to
    `version`, and rows."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.executescript(FIRST.read_text())
        db.executescript(ROWS)
        for step in range(2, version + 1):
            db.executescript(MIGRATIONS[step])
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {version}")
    finally:
        db.close()
