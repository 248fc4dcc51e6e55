"""What the staff can do to the running ladder, as store functions: each change and its audit
entry are committed in one transaction, so that no action goes unrecorded.

The switches live in the `state` table: "1" on, "0" off (a missing key is off; any value is
read as `deadline.flag_set` reads it, so that a flag the commands or a TA set reads the same):

    paused            the scheduler starts no new game (running ones finish)
    frozen            uploads are refused (kept as late, never played)
    grades_released   each student sees their own grade

`flags(db)` reads them all; the parts that obey them (the scheduler, the uploads, the grades)
read the same keys. Re-running a game and disqualifying a version are the ladder's controls
(controls.py); an invite is the accounts' own (accounts.py), noted here.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from referee.arena import accounts
from referee.arena.audit import note
from referee.arena.deadline import FROZEN, flag_set
from referee.arena.rows import Account
from referee.arena.store import get_state, transaction

PAUSED = "paused"
GRADES_RELEASED = "grades_released"
# Each switch's audit actions: (turned on, turned off).
SWITCH_ACTIONS = {
    PAUSED: ("pause", "resume"),
    FROZEN: ("freeze", "unfreeze"),
    GRADES_RELEASED: ("release-grades", "withdraw-grades"),
}


@dataclass(frozen=True)
class Flags:
    paused: bool
    frozen: bool
    grades_released: bool


def is_on(db: sqlite3.Connection, key: str) -> bool:
    return flag_set(get_state(db, key))


def flags(db: sqlite3.Connection) -> Flags:
    values = dict(
        db.execute("SELECT key, value FROM state WHERE key IN (?, ?, ?)", tuple(SWITCH_ACTIONS))
    )
    return Flags(*(flag_set(values.get(key)) for key in (PAUSED, FROZEN, GRADES_RELEASED)))


def switch(db: sqlite3.Connection, now: datetime, actor: int | None, key: str, on: bool) -> bool:
    """Turn one of the switches on or off, noted in the audit log; False if it already was."""
    if key not in SWITCH_ACTIONS:
        raise ValueError(f"no such switch: {key}")
    with transaction(db):
        if is_on(db, key) == on:
            return False
        db.execute(
            "INSERT OR REPLACE INTO state (key, value) VALUES (?, ?)", (key, "1" if on else "0")
        )
        note(db, now, actor, SWITCH_ACTIONS[key][0 if on else 1])
    return True


def invite(
    db: sqlite3.Connection, now: datetime, actor: int | None, account: Account, days: float
) -> str:
    """A new invite link's token for an account (its earlier one stops working), to be shown
    once; noted in the audit log right after the accounts' own function commits it."""
    token = accounts.issue_invite(db, account.id, now, days)
    with transaction(db):
        note(db, now, actor, "issue-invites", account.username)
    return token
