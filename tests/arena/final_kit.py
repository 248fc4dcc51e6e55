"""Versions made the way the submissions would leave them (an upload, a version row, its folder
with a tiny tic-tac-toe bot), for the tests of the deadline, the final and the grades."""

from __future__ import annotations

import hashlib
import sys
from datetime import UTC, datetime
from pathlib import Path

from referee.arena import accounts
from referee.arena.config import DeadlineSettings
from referee.arena.folder import Arena
from referee.arena.preflight import version_folder
from referee.arena.roster import Person
from referee.arena.rows import Role
from referee.arena.store import stamp, transaction

DEADLINE = datetime(2026, 12, 15, 23, 59, tzinfo=UTC)

# Plays the first free square (in `ORDER`), as a student's bot written to its version's folder.
BOT = """\
import sys
ORDER = {order!r}
taken = set()
mine = sys.stdin.readline().strip() == "blue"
while True:
    if not mine:
        line = sys.stdin.readline().strip()
        if not line or line == "END":
            break
        taken.add(line.lower())
    mine = False
    move = next(s for s in ORDER if s not in taken)
    taken.add(move)
    print(move, flush=True)
"""
FIRST_FREE = [c + r for r in "123" for c in "abc"]
LAST_FREE = FIRST_FREE[::-1]
CENTRE_FIRST = ["b2", "a1", "c3", "a3", "c1", "a2", "b1", "b3", "c2"]


def bot(order: list[str]) -> str:
    return BOT.format(order=order)


def add_students(arena: Arena, *usernames: str) -> None:
    people = [Person(name, name.title(), Role.STUDENT, None, 0) for name in usernames]
    accounts.import_roster(arena.store.writer, people, datetime(2026, 9, 1, tzinfo=UTC))


def add_version(
    arena: Arena,
    username: str,
    source: str,
    *,
    status: str = "active",
    late: bool = False,
    created: datetime | None = None,
) -> int:
    """A version of `username`'s, its folder holding `source` as bot.py; made `active` (the
    account's earlier active version superseded) unless `status` says otherwise."""
    db = arena.store.writer
    account = accounts.by_username(db, username)
    assert account is not None
    when = stamp(created or datetime(2026, 10, 1, tzinfo=UTC))
    data = source.encode()
    with transaction(db):
        upload = db.execute(
            "INSERT INTO uploads (sha256, size, name, account_id, received_at)"
            " VALUES (?, ?, 'bot.py', ?, ?)",
            (hashlib.sha256(data).hexdigest(), len(data), account.id, when),
        ).lastrowid
        (number,) = db.execute(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM versions WHERE account_id = ?",
            (account.id,),
        ).fetchone()
        if status == "active":
            db.execute(
                "UPDATE versions SET status = 'superseded' WHERE account_id = ?"
                " AND status = 'active'",
                (account.id,),
            )
        version = db.execute(
            "INSERT INTO versions (account_id, number, upload_id, status, command, created_at,"
            " late) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (account.id, number, upload, status, f"{sys.executable} bot.py", when, int(late)),
        ).lastrowid
    assert version is not None
    folder = version_folder(arena.paths, version)
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    return version


def set_status(arena: Arena, version: int, status: str) -> None:
    with transaction(arena.store.writer) as db:
        db.execute("UPDATE versions SET status = ? WHERE id = ?", (status, version))


def write_final_file(arena: Arena, text: str) -> Path:
    path = arena.paths.root / "tournament.toml"
    path.write_text(text)
    return path


FINAL = """\
game = "tic-tac-toe"
seed = {seed}
games_per_pairing = 2
concurrency = 2

[[players]]
name = "builtin-random"
command = "builtin:random --seed {{seed}}"
"""


def with_deadline(arena: Arena, at: datetime | None = DEADLINE) -> Arena:
    """The arena with `[deadline] at` set (as arena.toml would set it)."""
    deadline = DeadlineSettings(at=at)
    arena.config = arena.config.model_copy(update={"deadline": deadline})
    return arena
