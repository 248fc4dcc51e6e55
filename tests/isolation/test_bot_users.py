"""Bot users' slots: one user per running bot, and what a slot's last holder left behind."""

from __future__ import annotations

import os
import subprocess

import pytest
import trio

from referee.isolation import bot_users
from referee.isolation.bot_users import HELD, acquire_slot, lock_directory

# A range of its own, away from the one the referee uses by default.
BASE, COUNT = 61900, 3


@pytest.fixture
def own_range(users_level: None) -> None:
    for uid in range(BASE, BASE + COUNT):
        (lock_directory() / f"{uid}.lock").unlink(missing_ok=True)


def run_as(uid: int) -> subprocess.Popen[bytes]:
    """A process of user `uid` that would run for a minute."""
    command = ["sleep", "60"]
    return subprocess.Popen(command, user=uid, group=uid, extra_groups=[])


async def test_each_bot_gets_a_user_of_its_own_and_gives_it_back(own_range: None) -> None:
    first = await acquire_slot(BASE, COUNT)
    second = await acquire_slot(BASE, COUNT)
    assert first.uid != second.uid
    assert {first.uid, second.uid} <= set(range(BASE, BASE + COUNT))
    lock = lock_directory() / f"{first.uid}.lock"
    assert lock.read_bytes() == HELD
    first.release()
    assert lock.read_bytes() == b""
    second.release()


async def test_all_users_taken_is_an_error_naming_the_range(own_range: None) -> None:
    slots = [await acquire_slot(BASE, COUNT) for _ in range(COUNT)]
    with pytest.raises(bot_users.NoFreeSlot, match=f"all {COUNT} bot users from {BASE}"):
        await acquire_slot(BASE, COUNT)
    for slot in slots:
        slot.release()


async def test_what_a_dead_holder_left_is_killed_and_a_clean_slot_is_not_searched(
    own_range: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first user was given back properly; the second was held by a referee that died
    # (its lock file still says so) and a process of it still runs.
    (lock_directory() / f"{BASE}.lock").write_bytes(b"")
    (lock_directory() / f"{BASE + 1}.lock").write_bytes(HELD)
    left = run_as(BASE + 1)
    searched: list[int] = []
    original = bot_users.kill_user

    async def kill_user(uid: int, limit: float = 5.0) -> bool:
        searched.append(uid)
        return await original(uid, limit)

    monkeypatch.setattr(bot_users, "kill_user", kill_user)
    monkeypatch.setattr(bot_users, "_next_offset", 0)
    try:
        clean = await acquire_slot(BASE, COUNT)
        abandoned = await acquire_slot(BASE, COUNT)
        assert (clean.uid, abandoned.uid) == (BASE, BASE + 1)
        assert searched == [BASE + 1]
        with trio.fail_after(5):
            while left.poll() is None:
                await trio.sleep(0.01)
        assert left.returncode == -9
        clean.release()
        abandoned.release()
    finally:
        if left.poll() is None:
            os.kill(left.pid, 9)
        left.wait()
