"""Logins: a signed cookie carrying a random session id, whose SHA-256 is a row of `sessions`.

The cookie is signed (itsdangerous, with the arena's secret.key) and the row decides: a session
is valid while its row exists, has not expired and its account is enabled. Logging in always
makes a new session id and deletes the one the browser came with (so a session id planted
before the login is worth nothing after it); logging out deletes the row (a copied cookie dies
with it). Each session has its own CSRF token, which every form of a signed-in page carries.

Forms shown before a login (login, invite) are protected by a signed double-submit token: the
`arena_form` cookie and the form's field must hold the same signed value.
"""

from __future__ import annotations

import hmac
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from itsdangerous import BadSignature, URLSafeTimedSerializer

from referee.arena.accounts import new_secret, secret_hash
from referee.arena.rows import Account
from referee.arena.store import stamp, transaction

SESSION_COOKIE = "arena_session"
FORM_COOKIE = "arena_form"
CSRF_FIELD = "csrf"
FORM_TOKEN_HOURS = 12  # an anonymous form's token lasts this long


@dataclass(frozen=True, slots=True)
class Session:
    """A signed-in user's session: who it is, and the token its forms carry."""

    id_hash: str
    account: Account
    csrf: str
    expires_at: str


class CookieSigner:
    """Signs and checks the arena's cookies with its secret key (a salt per kind of cookie,
    so that one kind can never stand for another)."""

    def __init__(self, secret: bytes) -> None:
        self._session = URLSafeTimedSerializer(secret, salt="arena-session")
        self._form = URLSafeTimedSerializer(secret, salt="arena-form")

    def session_cookie(self, session_id: str) -> str:
        return self._session.dumps(session_id)

    def session_id(self, cookie: str, max_age: timedelta) -> str | None:
        """The session id a cookie carries, if it is ours and younger than `max_age`."""
        try:
            value = self._session.loads(cookie, max_age=int(max_age.total_seconds()))
        except BadSignature:  # SignatureExpired too
            return None
        return value if isinstance(value, str) else None

    def form_token(self) -> str:
        """A new token for the forms of an anonymous visitor (cookie and field alike)."""
        return self._form.dumps(secrets.token_urlsafe(16))

    def form_token_valid(self, token: str) -> bool:
        try:
            self._form.loads(token, max_age=FORM_TOKEN_HOURS * 3600)
        except BadSignature:
            return False
        return True


def same_secret(given: str | None, expected: str) -> bool:
    """Compare a token from a request with the expected one, in constant time."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def start_session(
    db: sqlite3.Connection,
    account_id: int,
    now: datetime,
    lifetime: timedelta,
    replacing: str | None = None,
) -> str:
    """A new session for the account; returns its id (for the cookie, never stored). The
    session the browser came with (`replacing`, its id) ends, and so do expired ones."""
    session_id = new_secret()
    with transaction(db):
        if replacing is not None:
            db.execute("DELETE FROM sessions WHERE id_hash = ?", (secret_hash(replacing),))
        db.execute("DELETE FROM sessions WHERE expires_at <= ?", (stamp(now),))
        db.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?, ?)",
            (
                secret_hash(session_id),
                account_id,
                secrets.token_urlsafe(24),
                stamp(now),
                stamp(now + lifetime),
            ),
        )
    return session_id


def find_session(db: sqlite3.Connection, session_id: str, now: datetime) -> Session | None:
    """The live session with this id: not expired, its account enabled."""
    columns = ", ".join(f"a.{c.strip()}" for c in Account.COLUMNS.split(","))
    row = db.execute(
        f"SELECT s.id_hash, s.csrf, s.expires_at, {columns} FROM sessions s"
        " JOIN accounts a ON a.id = s.account_id"
        " WHERE s.id_hash = ? AND s.expires_at > ? AND a.disabled = 0",
        (secret_hash(session_id), stamp(now)),
    ).fetchone()
    if row is None:
        return None
    return Session(id_hash=row[0], csrf=row[1], expires_at=row[2], account=Account.of(row[3:]))


def end_session(db: sqlite3.Connection, session_id: str) -> None:
    with transaction(db):
        db.execute("DELETE FROM sessions WHERE id_hash = ?", (secret_hash(session_id),))


def sessions_of(db: sqlite3.Connection, account_id: int) -> int:
    """How many sessions the account has (live or not yet purged)."""
    row = db.execute("SELECT count(*) FROM sessions WHERE account_id = ?", (account_id,))
    return int(row.fetchone()[0])
