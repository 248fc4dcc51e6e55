"""The deadline: uploads close at its very instant (and while frozen, and once the final is
pinned), the ladder starts no game, and the server pins the versions at the deadline; on a
clock the test moves (trio's virtual clock), never by waiting for the wall's."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import pytest
import trio
import trio.testing

from referee.arena import final_task
from referee.arena.deadline import ladder_open, uploads_closed, uploads_open, wait_until
from referee.arena.final import FinalError
from referee.arena.finalists import entries, finalists, pin, pinned_at, running_games
from referee.arena.folder import Arena
from referee.arena.ladder_store import take_next
from referee.arena.store import set_state, stamp, transaction
from tests.arena.final_kit import (
    DEADLINE,
    FIRST_FREE,
    add_students,
    add_version,
    bot,
    set_status,
    with_deadline,
)

TICK = timedelta(microseconds=1)


def test_uploads_close_at_the_instant_of_the_deadline(arena: Arena) -> None:
    config = with_deadline(arena).config
    db = arena.store.writer
    assert uploads_open(db, config, DEADLINE - TICK)
    assert ladder_open(db, config, DEADLINE - TICK)
    assert not uploads_open(db, config, DEADLINE)
    assert not ladder_open(db, config, DEADLINE)
    assert uploads_closed(db, config, DEADLINE + TICK) == (
        "the deadline (2026-12-15 23:59:00+00:00) has passed"
    )


def test_a_deadline_in_another_time_zone_is_the_same_instant(arena: Arena) -> None:
    eastern = datetime(2026, 12, 15, 23, 59, tzinfo=timezone(timedelta(hours=-5)))
    config = with_deadline(arena, eastern).config
    db = arena.store.writer
    in_utc = datetime(2026, 12, 16, 4, 59, tzinfo=UTC)
    assert uploads_open(db, config, in_utc - TICK)
    assert not uploads_open(db, config, in_utc)


def test_freezing_and_pinning_close_uploads_before_the_deadline(arena: Arena) -> None:
    config = with_deadline(arena).config
    db = arena.store.writer
    early = DEADLINE - timedelta(days=3)
    set_state(db, "frozen", "1")
    assert uploads_closed(db, config, early) == "the staff have frozen the arena"
    assert ladder_open(db, config, early)  # freezing is about uploads
    set_state(db, "frozen", "0")
    assert uploads_open(db, config, early)
    assert pin(db, early, None)
    assert uploads_closed(db, config, early) == "the final's versions are pinned"
    assert not ladder_open(db, config, early)


def test_without_a_deadline_uploads_stay_open(arena: Arena) -> None:
    db = arena.store.writer
    assert uploads_open(db, arena.config, datetime(2099, 1, 1, tzinfo=DEADLINE.tzinfo))


def moved_clock(start: datetime) -> Callable[[], datetime]:
    """The arena's clock, moving with trio's (virtual, under `autojump_clock`) from `start`."""
    origin = trio.current_time()
    return lambda: start + timedelta(seconds=trio.current_time() - origin)


async def test_waiting_for_the_deadline_reads_the_clock_again(
    autojump_clock: trio.testing.MockClock,
) -> None:
    clock = moved_clock(DEADLINE - timedelta(hours=5))
    await wait_until(clock, DEADLINE)
    assert clock() == DEADLINE
    await wait_until(clock, DEADLINE - timedelta(days=1))  # passed: at once
    assert clock() == DEADLINE


@pytest.fixture
def stopped_before_playing(monkeypatch: pytest.MonkeyPatch) -> list[Arena]:
    """The final stopped just after the pin (the tests of the final play it): the arenas it
    was asked to open."""
    opened: list[Arena] = []

    async def refuse(arena: Arena) -> None:
        opened.append(arena)
        raise FinalError("not played in this test")

    monkeypatch.setattr(final_task, "open_final", refuse)
    return opened


PATIENCE = 120.0  # seconds of real time: a busy machine's threads may take that long


async def until(done: Callable[[], bool]) -> None:
    """Let the server's task run (its queries in worker threads, on real time) until `done`;
    the virtual clock stands still meanwhile."""
    end = time.monotonic() + PATIENCE
    while time.monotonic() < end:
        if done():
            # `done` may turn true inside the task's worker thread: let the thread hand its
            # answer back and the task go on until it waits again (its next sleep on the
            # virtual clock), so that the test's next jump of the clock is not taken before
            # that sleep began and lost.
            await trio.to_thread.run_sync(time.sleep, 0.05)
            await trio.testing.wait_all_tasks_blocked()
            return
        await trio.to_thread.run_sync(time.sleep, 0.002)
    raise AssertionError("the server's task never got there")


async def test_the_server_pins_the_versions_at_the_deadline(
    arena: Arena, mock_clock: trio.testing.MockClock, stopped_before_playing: list[Arena]
) -> None:
    with_deadline(arena)
    add_students(arena, "carol")
    alice = add_version(arena, "alice", bot(FIRST_FREE))
    # Kept but late: never played, even made active (the submissions never make it so).
    add_version(arena, "bob", bot(FIRST_FREE), late=True)
    clock = moved_clock(DEADLINE - timedelta(hours=1))
    db = arena.store.writer
    async with trio.open_nursery() as nursery:
        await nursery.start(final_task.final_at_deadline, arena, clock)
        mock_clock.jump(3600 - 1)
        await trio.testing.wait_all_tasks_blocked()
        assert clock() == DEADLINE - timedelta(seconds=1)
        assert pinned_at(db) is None and uploads_open(db, arena.config, clock())
        mock_clock.jump(1)
        await until(lambda: bool(stopped_before_playing))
    assert pinned_at(db) == stamp(DEADLINE)
    pinned = {e.username: e.version_id for e in entries(db)}
    assert pinned == {"alice": alice, "bob": None, "carol": None}  # bob's is late
    assert stopped_before_playing == [arena]


async def test_the_pin_waits_for_checks_of_uploads_in_time_and_running_games(
    arena: Arena,
    mock_clock: trio.testing.MockClock,
    stopped_before_playing: list[Arena],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with_deadline(arena)
    first = add_version(arena, "alice", bot(FIRST_FREE))
    bob = add_version(arena, "bob", bot(FIRST_FREE))
    checking = add_version(arena, "alice", bot(FIRST_FREE), status="checking")
    db = arena.store.writer
    with transaction(db):
        db.execute(
            "INSERT INTO games (kind, blue, orange, seed, state, created_at)"
            " VALUES ('ladder', ?, ?, 1, 'running', ?)",
            (first, bob, stamp(DEADLINE)),
        )
    looks: list[int] = []  # each time the task looked at the ladder's games

    def counted(db: sqlite3.Connection) -> int:
        looks.append(running_games(db))
        return looks[-1]

    monkeypatch.setattr(final_task, "running_games", counted)

    async def look_again() -> None:
        before = len(looks)
        mock_clock.jump(final_task.POLL)
        await until(lambda: len(looks) > before)

    async with trio.open_nursery() as nursery:
        await nursery.start(final_task.final_at_deadline, arena, moved_clock(DEADLINE))
        await until(lambda: len(looks) == 1)
        await look_again()
        assert pinned_at(db) is None
        # The check passes (the new version is active); the ladder's game still runs.
        set_status(arena, first, "superseded")
        set_status(arena, checking, "active")
        await look_again()
        assert pinned_at(db) is None
        with transaction(db):
            db.execute("UPDATE games SET state = 'done'")
        mock_clock.jump(final_task.POLL)
        await until(lambda: bool(stopped_before_playing))
    pinned = {e.username: e.version_id for e in entries(db)}
    assert pinned == {"alice": checking, "bob": bob}


def test_pinning_twice_changes_nothing_and_is_audited(arena: Arena) -> None:
    alice = add_version(arena, "alice", bot(FIRST_FREE))
    db = arena.store.writer
    assert pin(db, DEADLINE, None)
    add_version(arena, "alice", bot(FIRST_FREE))  # a later one (it would be late)
    assert not pin(db, DEADLINE + timedelta(hours=1), None)
    assert {e.username: e.version_id for e in entries(db)} == {"alice": alice, "bob": None}
    assert {row.pinned_at for row in finalists(db)} == {stamp(DEADLINE)}
    notes = db.execute("SELECT action, target, detail FROM audit WHERE action = 'pin-final'")
    assert notes.fetchall() == [("pin-final", "1 versions", "absent: bob")]


def ladder_game(arena: Arena, blue: int, orange: int, state: str) -> int:
    with transaction(arena.store.writer) as db:
        game = db.execute(
            "INSERT INTO games (kind, blue, orange, seed, state, created_at)"
            " VALUES ('ladder', ?, ?, 1, ?, ?)",
            (blue, orange, state, stamp(DEADLINE)),
        ).lastrowid
    assert game is not None
    return game


def test_the_pin_waits_for_the_ladders_waiting_games_unless_it_is_paused(arena: Arena) -> None:
    alice = add_version(arena, "alice", bot(FIRST_FREE))
    bob = add_version(arena, "bob", bot(FIRST_FREE))
    ladder_game(arena, alice, bob, "pending")  # after the deadline the ladder still plays it
    db = arena.store.writer
    assert running_games(db) == 1
    set_state(db, "paused", "1")  # but not while paused: the pin withdraws it
    assert running_games(db) == 0


def test_after_the_pin_the_ladder_starts_nothing(arena: Arena) -> None:
    alice = add_version(arena, "alice", bot(FIRST_FREE))
    bob = add_version(arena, "bob", bot(FIRST_FREE))
    waiting = ladder_game(arena, alice, bob, "pending")
    db = arena.store.writer
    assert pin(db, DEADLINE, None)
    (state, detail) = db.execute(
        "SELECT state, detail FROM games WHERE id = ?", (waiting,)
    ).fetchone()
    assert state == "void" and "pinned" in detail
    ladder_game(arena, bob, alice, "pending")  # a re-run the staff asked for, say
    assert take_next(db, DEADLINE) is None
