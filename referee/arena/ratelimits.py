"""Rate limits kept in the store (table `attempts`), so they hold across restarts and across
the processes of one arena: each event is a row `(key, at)`, and a key is limited when it has
`limit` events in the last `window`.

Keys name what is counted: `login:USERNAME` (failed logins of an account, whether it exists or
not, so that the limit tells nothing about who has an account), `login-ip:ADDRESS` (failed logins
from a client address), `upload:ACCOUNT_ID` (uploads).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import datetime, timedelta

from referee.arena.store import stamp, transaction

KEEP = timedelta(days=2)  # events older than this are forgotten (longer than any window)


MAX_KEY_NAME = 64  # no username is longer: a longer name typed in is counted by its start


def login_key(username: str) -> str:
    """The key of a username's failed logins (whatever was typed in: the row stays small)."""
    return f"login:{username.strip().lower()[:MAX_KEY_NAME]}"


def address_key(address: str) -> str:
    return f"login-ip:{address[:MAX_KEY_NAME]}"


def upload_key(account_id: int) -> str:
    return f"upload:{account_id}"


def count(db: sqlite3.Connection, key: str, now: datetime, window: timedelta) -> int:
    """The events of `key` in the `window` before `now`."""
    row = db.execute(
        "SELECT count(*) FROM attempts WHERE key = ? AND at > ?", (key, stamp(now - window))
    ).fetchone()
    return int(row[0])


def limited(
    db: sqlite3.Connection, limits: dict[str, int], now: datetime, window: timedelta
) -> bool:
    """Whether any key has reached its limit (`limits`: key -> most events per window)."""
    return any(count(db, key, now, window) >= most for key, most in limits.items())


def add(db: sqlite3.Connection, keys: Iterable[str], now: datetime) -> None:
    """Count one event for each key (and forget the events older than `KEEP`)."""
    with transaction(db):
        count_in(db, keys, now)


def count_in(db: sqlite3.Connection, keys: Iterable[str], now: datetime) -> None:
    """`add` inside the caller's own transaction (one that checks a limit and counts the
    event at once, so that two requests together cannot both pass the last place)."""
    db.executemany("INSERT INTO attempts VALUES (?, ?)", [(k, stamp(now)) for k in keys])
    db.execute("DELETE FROM attempts WHERE at < ?", (stamp(now - KEEP),))


def clear(db: sqlite3.Connection, key: str) -> None:
    """Forget a key's events (an account's failed logins, once it logs in)."""
    with transaction(db):
        db.execute("DELETE FROM attempts WHERE key = ?", (key,))
