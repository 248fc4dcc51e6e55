"""Accounts: the roster read and imported, passwords hashed with argon2id, invites that work
once and expire, API tokens stored as hashes only, rate limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from referee.arena import accounts, ratelimits
from referee.arena.folder import Arena
from referee.arena.roster import RosterError, read_roster
from referee.arena.rows import Role

NOW = datetime(2026, 9, 2, 9, 0, tzinfo=UTC)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_roster_is_read_with_or_without_its_header(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '\ufeffUsername,Name,Role,Email\n# a comment\n\nAlice,"Smith, Alice",Student,a@x.edu\n'
        "ta1,Tess,staff\n",
    )
    people = read_roster(path)
    assert [(p.username, p.name, p.role, p.email, p.line) for p in people] == [
        ("alice", "Smith, Alice", Role.STUDENT, "a@x.edu", 4),
        ("ta1", "Tess", Role.STAFF, None, 5),
    ]


def test_every_roster_problem_names_its_line_and_column(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "username,name,role\nalice,Alice,student\nbad name,B,student\ncarol,,student\n"
        "dave,Dave,teacher\nalice,Again,student\neve,Eve,student,not-an-address\nonly,two\n",
    )
    with pytest.raises(RosterError) as caught:
        read_roster(path)
    assert str(caught.value).splitlines() == [
        f"{path}:3: username: 'bad name': use letters, digits, '.', '_' or '-' (up to 64)",
        f"{path}:4: name: give a name of 1 to 100 characters",
        f"{path}:5: role: 'teacher' is neither 'student' nor 'staff'",
        f"{path}:6: username: 'alice' is already on line 2",
        f"{path}:7: email: 'not-an-address' is not an email address",
        f"{path}:8: (line): expected username,name,role[,email], got 2 fields",
    ]


def test_importing_again_adds_the_new_people_and_changes_nothing_else(
    tmp_path: Path, arena: Arena
) -> None:
    db = arena.store.writer
    first = read_roster(write(tmp_path, "ann,Ann,student\nben,Ben,student\n"))
    done = accounts.import_roster(db, first, NOW)
    assert [a.username for a in done.added] == ["ann", "ben"]
    before = accounts.by_username(db, "ann")
    second = read_roster(write(tmp_path, "ann,Ann Renamed,staff\nben,Ben,student\ncy,Cy,student\n"))
    again = accounts.import_roster(db, second, NOW + timedelta(days=1))
    assert [a.username for a in again.added] == ["cy"]
    assert [a.username for a in again.unchanged] == ["ann", "ben"]
    assert again.notes == ["line 1: ann is already a student named 'Ann': left as is"]
    assert accounts.by_username(db, "ann") == before


def test_passwords_are_argon2id_hashes_that_verify(arena: Arena) -> None:
    db = arena.store.writer
    alice = accounts.by_username(db, "alice")
    assert alice is not None and alice.password_hash is not None
    assert alice.password_hash.startswith("$argon2id$")
    assert accounts.verify_password(alice, "correct horse battery")
    assert not accounts.verify_password(alice, "correct horse batterY")
    assert not accounts.verify_password(None, "correct horse battery")
    assert not accounts.needs_rehash(alice)
    weaker = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash("pw")
    accounts.set_password(db, alice.id, weaker)
    renewed = accounts.by_username(db, "alice")
    assert renewed is not None and accounts.needs_rehash(renewed)
    assert accounts.verify_password(renewed, "pw")


def test_an_invite_works_once_and_until_it_expires(arena: Arena) -> None:
    db = arena.store.writer
    bob = accounts.by_username(db, "bob")
    assert bob is not None
    token = accounts.issue_invite(db, bob.id, NOW, days=2)
    assert accounts.by_invite(db, token, NOW + timedelta(days=1)) == accounts.by_id(db, bob.id)
    assert accounts.by_invite(db, token, NOW + timedelta(days=2)) is None
    assert accounts.redeem_invite(db, token, "x", NOW + timedelta(days=3)) is None
    redeemed = accounts.redeem_invite(db, token, accounts.hash_password("pw"), NOW)
    assert redeemed is not None and redeemed.invite_expires is None
    assert accounts.redeem_invite(db, token, "y", NOW) is None
    first = accounts.issue_invite(db, bob.id, NOW, days=2)
    second = accounts.issue_invite(db, bob.id, NOW, days=2)
    assert accounts.by_invite(db, first, NOW) is None  # a new invite ends the one before
    assert accounts.by_invite(db, second, NOW) is not None


def test_secrets_are_stored_as_hashes_only(arena: Arena) -> None:
    db = arena.store.writer
    alice = accounts.by_username(db, "alice")
    assert alice is not None
    token = accounts.rotate_token(db, alice.id)
    invite = accounts.issue_invite(db, alice.id, NOW, days=1)
    password = accounts.issue_password(db, alice.id)
    assert accounts.by_token(db, token) == accounts.by_id(db, alice.id)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    stored = arena.paths.store.read_bytes()
    for secret in (token, invite, password):
        assert secret.encode() not in stored
    assert accounts.secret_hash(token).encode() in stored
    assert accounts.by_token(db, accounts.rotate_token(db, alice.id)) is not None
    assert accounts.by_token(db, token) is None  # the old token ended with the new one


def test_a_disabled_account_is_found_by_name_but_not_by_token(arena: Arena) -> None:
    db = arena.store.writer
    alice = accounts.by_username(db, "alice")
    assert alice is not None
    token = accounts.rotate_token(db, alice.id)
    accounts.set_disabled(db, alice.id, True, NOW, None)
    assert accounts.by_token(db, token) is None
    found = accounts.by_username(db, " ALICE ")
    assert found is not None and found.disabled
    entry = db.execute("SELECT action, target FROM audit ORDER BY id DESC").fetchone()
    assert entry == ("disable", f"account {alice.id}")


def test_rate_limits_count_within_their_window(arena: Arena) -> None:
    db = arena.store.writer
    window = timedelta(minutes=15)
    key = ratelimits.login_key("Alice")
    for minute in range(3):
        ratelimits.add(db, [key], NOW + timedelta(minutes=minute))
    at = NOW + timedelta(minutes=3)
    assert ratelimits.count(db, key, at, window) == 3
    assert ratelimits.limited(db, {key: 3}, at, window)
    assert not ratelimits.limited(db, {key: 4}, at, window)
    assert ratelimits.count(db, key, NOW + timedelta(minutes=15, seconds=30), window) == 2
    ratelimits.clear(db, key)
    assert ratelimits.count(db, key, at, window) == 0
    # Whatever is typed in as a username, a failure's row stays small.
    assert ratelimits.login_key(" " + "X" * 60_000) == "login:" + "x" * 64
