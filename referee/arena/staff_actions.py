"""What the staff can do to the running ladder, as store functions: each change and its audit
entry are committed in one transaction, so that no action goes unrecorded.

The switches live in the `state` table: "1" on, "0" off (a missing key is off; any value is
read as `deadline.flag_set` reads it, so that a flag the commands or a TA set reads the same):

    paused            the scheduler starts no new game (running ones finish)
    frozen            uploads are refused (kept as late, never played)
    grades_released   each student sees their own grade

`flags(db)` reads them all; the parts that obey them (the scheduler, the uploads, the grades)
read the same keys. A game re-run and a version disqualified are changes to `games` and
`versions` (see each function); an invite is the accounts' own (accounts.py), noted here.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime

from referee.arena import accounts
from referee.arena.audit import note
from referee.arena.deadline import FROZEN, flag_set
from referee.arena.rows import Account, Game, GameKind, GameState, VersionStatus
from referee.arena.store import get_state, stamp, transaction

PAUSED = "paused"
GRADES_RELEASED = "grades_released"
# Each switch's audit actions: (turned on, turned off).
SWITCH_ACTIONS = {
    PAUSED: ("pause", "resume"),
    FROZEN: ("freeze", "unfreeze"),
    GRADES_RELEASED: ("release-grades", "withdraw-grades"),
}


class StaffActionError(Exception):
    """An action that cannot be done as asked; the message says why, in the staff's words."""


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


def rerun_game(db: sqlite3.Connection, now: datetime, actor: int | None, game_id: int) -> int:
    """Play a finished game again: a new pending game of kind `rerun` (the same versions,
    colours, seed and opening) replaces it, and the old one becomes void (its record and
    result are kept, no longer counted). Returns the new game's id."""
    with transaction(db):
        row = db.execute(f"SELECT {Game.COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StaffActionError(f"there is no game {game_id}")
        game = Game.of(row)
        if game.state not in (GameState.DONE, GameState.VOID):
            raise StaffActionError(f"game {game_id} is {game.state}: only a played game is re-run")
        disqualified = db.execute(
            "SELECT count(*) FROM versions WHERE id IN (?, ?) AND status = 'disqualified'",
            (game.blue, game.orange),
        ).fetchone()[0]
        if disqualified:
            raise StaffActionError(f"game {game_id} has a disqualified version: not re-run")
        opening = None if game.opening is None else json.dumps(list(game.opening))
        cursor = db.execute(
            "INSERT INTO games (kind, blue, orange, seed, opening, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (GameKind.RERUN.value, game.blue, game.orange, game.seed, opening, stamp(now)),
        )
        new_id = int(cursor.lastrowid or 0)
        replaced = f"re-run by staff as game {new_id}"
        detail = f"{game.detail}; {replaced}" if game.detail else replaced
        db.execute("UPDATE games SET state = 'void', detail = ? WHERE id = ?", (detail, game_id))
        note(db, now, actor, "rerun", f"game {game_id}", f"as game {new_id}")
    return new_id


def disqualify(
    db: sqlite3.Connection, now: datetime, actor: int | None, version_id: int, why: str
) -> None:
    """Take a version off the ladder for good: its status becomes `disqualified`, its pending
    games are void, no game is scheduled for it again and it leaves the leaderboard. Its games
    already played stand (its opponents keep what they won); a game it is playing finishes."""
    with transaction(db):
        row = db.execute(
            "SELECT v.status, v.number, a.username FROM versions v"
            " JOIN accounts a ON a.id = v.account_id WHERE v.id = ?",
            (version_id,),
        ).fetchone()
        if row is None:
            raise StaffActionError(f"there is no version {version_id}")
        status, number, username = row
        if status == VersionStatus.DISQUALIFIED.value:
            raise StaffActionError(f"{username}'s v{number} is disqualified already")
        db.execute("UPDATE versions SET status = 'disqualified' WHERE id = ?", (version_id,))
        db.execute(
            "UPDATE games SET state = 'void', detail = ? WHERE state = 'pending'"
            " AND (blue = ? OR orange = ?)",
            (f"{username}'s v{number} was disqualified", version_id, version_id),
        )
        note(
            db,
            now,
            actor,
            "disqualify",
            f"version {version_id} ({username} v{number})",
            why or None,
        )


def invite(
    db: sqlite3.Connection, now: datetime, actor: int | None, account: Account, days: float
) -> str:
    """A new invite link's token for an account (its earlier one stops working), to be shown
    once; noted in the audit log right after the accounts' own function commits it."""
    token = accounts.issue_invite(db, account.id, now, days)
    with transaction(db):
        note(db, now, actor, "issue-invites", account.username)
    return token
