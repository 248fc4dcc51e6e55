"""Accounts: the roster imported, passwords, invite links, API tokens, disabling.

Passwords are hashed with argon2id (argon2-cffi), with OWASP's parameters for it (19 MiB,
2 passes, one lane: a fraction of a second, so that logins stay cheap for the server and dear
for a guesser); a hash made with other parameters is replaced at the next login. Invite tokens,
API tokens and session ids are long random secrets (256 bits), so they are stored as their
SHA-256, which a fast lookup can find and a stolen store cannot turn back into a secret; each is
shown once, when made. An invite works once and only until it expires; a disabled account can
neither log in nor use its token, and loses its sessions.

Every function takes the connection it runs on (`ArenaStore.read`/`write`, or the command
line's `store.writer`); those that write commit one short transaction of their own.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from referee.arena.audit import note
from referee.arena.roster import Person
from referee.arena.rows import Account
from referee.arena.store import stamp, transaction

HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
TOKEN_BYTES = 32
PASSWORD_BYTES = 12  # an initial password: 16 characters of the URL-safe alphabet


def secret_hash(secret: str) -> str:
    """How a random secret (invite, API token, session id) is stored: its SHA-256."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_password(password: str) -> str:
    return HASHER.hash(password)


@functools.cache
def _decoy_hash() -> str:
    return HASHER.hash(new_secret())


def verify_password(account: Account | None, password: str) -> bool:
    """Whether `password` is the account's. Takes as long for an unknown or password-less
    account (against a decoy hash) as for a real one, so the time does not tell which."""
    stored = account.password_hash if account is not None else None
    try:
        HASHER.verify(stored or _decoy_hash(), password)
    except (VerificationError, InvalidHashError):
        return False
    return stored is not None


def needs_rehash(account: Account) -> bool:
    return account.password_hash is not None and HASHER.check_needs_rehash(account.password_hash)


def _one(db: sqlite3.Connection, where: str, *args: object) -> Account | None:
    row = db.execute(f"SELECT {Account.COLUMNS} FROM accounts WHERE {where}", args).fetchone()
    return None if row is None else Account.of(row)


def by_username(db: sqlite3.Connection, username: str) -> Account | None:
    return _one(db, "username = ?", username.strip().lower())


def by_id(db: sqlite3.Connection, account_id: int) -> Account | None:
    return _one(db, "id = ?", account_id)


def by_token(db: sqlite3.Connection, token: str) -> Account | None:
    """The enabled account whose API token this is."""
    return _one(db, "token_hash = ? AND disabled = 0", secret_hash(token))


def by_invite(db: sqlite3.Connection, token: str, now: datetime) -> Account | None:
    """The enabled account this invite is pending for, if it has not expired."""
    return _one(
        db,
        "invite_hash = ? AND invite_expires > ? AND disabled = 0",
        secret_hash(token),
        stamp(now),
    )


def all_accounts(db: sqlite3.Connection) -> list[Account]:
    rows = db.execute(f"SELECT {Account.COLUMNS} FROM accounts ORDER BY role, username")
    return [Account.of(r) for r in rows]


@dataclass
class Imported:
    """What importing a roster did: the accounts it made, and the people already there (left
    as they were, with a note where the roster now says otherwise)."""

    added: list[Account] = field(default_factory=list)
    unchanged: list[Account] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def import_roster(db: sqlite3.Connection, people: list[Person], now: datetime) -> Imported:
    """Add the people not in the store yet, in one transaction; change nothing else, so that
    importing the same roster again (or a longer one) is safe."""
    done = Imported()
    with transaction(db):
        for person in people:
            existing = _one(db, "username = ?", person.username)
            if existing is not None:
                done.unchanged.append(existing)
                if existing.role is not person.role or existing.display_name != person.name:
                    done.notes.append(
                        f"line {person.line}: {person.username} is already a {existing.role} "
                        f"named {existing.display_name!r}: left as is"
                    )
                continue
            cursor = db.execute(
                "INSERT INTO accounts (username, display_name, role, email, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (person.username, person.name, person.role.value, person.email, stamp(now)),
            )
            account = _one(db, "id = ?", cursor.lastrowid)
            assert account is not None
            done.added.append(account)
        if done.added:
            note(db, now, None, "import-roster", None, f"{len(done.added)} accounts added")
    return done


def issue_invite(db: sqlite3.Connection, account_id: int, now: datetime, days: float) -> str:
    """A new invite link's token for the account (any earlier one stops working)."""
    token = new_secret()
    expires = stamp(now + timedelta(days=days))
    with transaction(db):
        db.execute(
            "UPDATE accounts SET invite_hash = ?, invite_expires = ? WHERE id = ?",
            (secret_hash(token), expires, account_id),
        )
    return token


def issue_password(db: sqlite3.Connection, account_id: int) -> str:
    """A new random password for the account, returned to be shown once (its pending invite,
    its sessions and its old password stop working)."""
    password = secrets.token_urlsafe(PASSWORD_BYTES)
    set_password(db, account_id, hash_password(password))
    return password


def redeem_invite(
    db: sqlite3.Connection, token: str, password_hash: str, now: datetime
) -> Account | None:
    """Set the password of the account the invite is for, and spend the invite: the same
    token never works twice. None: no such invite, or it expired."""
    with transaction(db):
        account = by_invite(db, token, now)
        if account is None:
            return None
        db.execute(
            "UPDATE accounts SET password_hash = ?, invite_hash = NULL, invite_expires = NULL"
            " WHERE id = ?",
            (password_hash, account.id),
        )
        db.execute("DELETE FROM sessions WHERE account_id = ?", (account.id,))
    return by_id(db, account.id)


def set_password(
    db: sqlite3.Connection, account_id: int, password_hash: str, keep_session: str | None = None
) -> None:
    """A new password hash; every session of the account ends but `keep_session` (an id
    hash: the one changing it), and a pending invite is spent."""
    with transaction(db):
        db.execute(
            "UPDATE accounts SET password_hash = ?, invite_hash = NULL, invite_expires = NULL"
            " WHERE id = ?",
            (password_hash, account_id),
        )
        db.execute(
            "DELETE FROM sessions WHERE account_id = ? AND id_hash IS NOT ?",
            (account_id, keep_session),
        )


def rotate_token(db: sqlite3.Connection, account_id: int) -> str:
    """A new API token for the account, returned to be shown once; the old one stops working."""
    token = new_secret()
    with transaction(db):
        db.execute(
            "UPDATE accounts SET token_hash = ? WHERE id = ?", (secret_hash(token), account_id)
        )
    return token


def set_disabled(
    db: sqlite3.Connection, account_id: int, disabled: bool, now: datetime, actor: int | None
) -> None:
    """Disable (or enable again) an account: a disabled one cannot log in, its invite and
    sessions end and its API token is refused."""
    with transaction(db):
        db.execute("UPDATE accounts SET disabled = ? WHERE id = ?", (int(disabled), account_id))
        if disabled:
            db.execute(
                "UPDATE accounts SET invite_hash = NULL, invite_expires = NULL WHERE id = ?",
                (account_id,),
            )
            db.execute("DELETE FROM sessions WHERE account_id = ?", (account_id,))
        note(db, now, actor, "disable" if disabled else "enable", f"account {account_id}")
