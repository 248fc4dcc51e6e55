"""An arena made for each test (tic-tac-toe, three accounts with passwords)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from referee.arena import accounts
from referee.arena.folder import Arena, new_arena, open_arena
from referee.arena.roster import Person
from referee.arena.rows import Role

PASSWORD = "correct horse battery"
PEOPLE = [
    Person("alice", "Alice Student", Role.STUDENT, "alice@example.edu", 2),
    Person("bob", "Bob <b>Student</b>", Role.STUDENT, None, 3),
    Person("tess", "Tess Staff", Role.STAFF, None, 4),
]


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    new_arena(tmp_path / "arena", game="tic-tac-toe", name="Test <arena>")
    opened = open_arena(tmp_path / "arena")
    db = opened.store.writer
    done = accounts.import_roster(db, PEOPLE, datetime(2026, 9, 1, tzinfo=UTC))
    hashed = accounts.hash_password(PASSWORD)
    for account in done.added:
        accounts.set_password(db, account.id, hashed)
    yield opened
    opened.close()
