"""The deadline: when uploads close and the ladder stops, said in one place.

Uploads are open before `[deadline] at`, while the staff have not frozen the arena and the
final's versions are not pinned (`referee arena final --now` pins them early). An upload that
comes when they are closed is kept but never played (the submissions mark it `late`), so
`uploads_open` is asked at the moment an upload arrives. The ladder starts no game once the
deadline has passed or the final is pinned (`ladder_open`); the games it is playing finish.

Every time is compared as the arena's clock gives it (`Site.clock`), so tests move a clock
instead of waiting, and the instant of the deadline itself is already closed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime

import trio

from referee.arena.config import ArenaConfig
from referee.arena.store import get_state

FROZEN = "frozen"  # state: set by the staff, uploads refused until unset
PINNED = "final_pinned_at"  # state: when the final's versions were pinned (finalists.py)
# Values of a state flag that mean "not set" (any other value sets it).
UNSET = frozenset({"", "0", "false", "no", "off"})
LONGEST_SLEEP = 60.0  # seconds: the clock is read again at least this often


def flag_set(value: str | None) -> bool:
    """Whether a flag of the `state` table is set: present, and not `UNSET`."""
    return value is not None and value.strip().lower() not in UNSET


def past_deadline(config: ArenaConfig, now: datetime) -> bool:
    """Whether `now` is at or after the deadline (never, without one)."""
    at = config.deadline.at
    return at is not None and now >= at


def uploads_closed(db: sqlite3.Connection, config: ArenaConfig, now: datetime) -> str | None:
    """Why an upload arriving `now` is not played (it is kept, as late), or None while uploads
    are open. A query: `await store.read(uploads_closed, config, now)`."""
    if past_deadline(config, now):
        return f"the deadline ({config.deadline.at}) has passed"
    if get_state(db, PINNED) is not None:
        return "the final's versions are pinned"
    if flag_set(get_state(db, FROZEN)):
        return "the staff have frozen the arena"
    return None


def uploads_open(db: sqlite3.Connection, config: ArenaConfig, now: datetime) -> bool:
    """Whether an upload arriving `now` will be played: the one test every upload passes."""
    return uploads_closed(db, config, now) is None


def ladder_open(db: sqlite3.Connection, config: ArenaConfig, now: datetime) -> bool:
    """Whether the ladder may start a game `now`: before the deadline and before the pin."""
    return ladder_closed(db, config.deadline.at, now) is None


def ladder_closed(db: sqlite3.Connection, deadline: datetime | None, now: datetime) -> str | None:
    """Why the ladder schedules nothing new `now` (`deadline`: `[deadline] at`), or None while
    it is open."""
    if deadline is not None and now >= deadline:
        return f"the deadline ({deadline}) has passed"
    if get_state(db, PINNED) is not None:
        return "the final's versions are pinned"
    return None


async def wait_until(clock: Callable[[], datetime], moment: datetime) -> None:
    """Return once `clock()` reaches `moment`. The clock is read again after each sleep (at
    most `LONGEST_SLEEP`), so a machine that slept, or a clock set forward, is noticed."""
    while (left := (moment - clock()).total_seconds()) > 0:
        await trio.sleep(min(left, LONGEST_SLEEP))
