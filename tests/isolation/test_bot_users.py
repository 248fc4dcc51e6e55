"""Bot users' slots: one user per running bot, and what a slot's last holder left behind; a run
refuses, before its first game, bot user ids that are not free or too few."""

from __future__ import annotations

import os
import pwd
import subprocess
import time
import zlib
from pathlib import Path

import pytest
import trio

from referee.isolation import bot_users
from referee.isolation.bot_users import HELD, acquire_slot, lock_directory
from referee.isolation.confinement import FILE_CLOCK_SLACK
from tests.commandline import referee

CompletedRun = subprocess.CompletedProcess[str]

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


# `referee tournament run` as an instructor runs it, its bot users set in [match.isolation].
TOURNAMENT = """\
name = "ids"
game = "tic-tac-toe"
seed = 1
games_per_pairing = 1
concurrency = {concurrency}

[match.isolation]
level = "auto"
uid_base = {base}
uid_count = {count}

[[players]]
name = "x"
command = "builtin:random --seed 1"
[[players]]
name = "y"
command = "builtin:random --seed 2"
"""


def own_pair(tmp_path: Path) -> int:
    """The first of two ids of this test's own, away from the default range and from the
    ranges of the other tests and runs beside it."""
    return 64000 + zlib.crc32(f"{tmp_path} {os.getpid()}".encode()) % 400 * 2


def tournament(tmp_path: Path, base: int, count: int = 2, concurrency: int = 1) -> CompletedRun:
    for uid in range(base, base + count):
        (lock_directory() / f"{uid}.lock").unlink(missing_ok=True)
    config = TOURNAMENT.format(base=base, count=count, concurrency=concurrency)
    (tmp_path / "ids.toml").write_text(config)
    return referee("tournament", "run", "ids.toml", "-q", cwd=tmp_path)


def test_bot_user_ids_a_real_user_has_are_refused_before_any_game(
    users_level: None, tmp_path: Path
) -> None:
    # The passwd database names 65534 (nobody) on every Debian: a run with it among its bot
    # users would kill nobody's processes and delete its files.
    nobody = pwd.getpwnam("nobody").pw_uid
    run = tournament(tmp_path, nobody - 1)
    assert run.returncode == 2, run.stderr
    assert f"names {nobody} (user nobody)" in run.stderr and "uid_base" in run.stderr
    assert not (tmp_path / "ids" / "tournament.sqlite").exists()


def test_an_id_running_a_process_no_referee_started_is_refused_and_left_alone(
    users_level: None, tmp_path: Path
) -> None:
    base = own_pair(tmp_path)
    theirs = run_as(base + 1)
    try:
        run = tournament(tmp_path, base)
        assert run.returncode == 2, run.stderr
        assert f"processes that no referee started run as {base + 1} (pid {theirs.pid})" in (
            run.stderr
        )
        assert theirs.poll() is None
    finally:
        theirs.kill()
        theirs.wait()


def test_files_a_bot_user_id_had_before_the_run_are_not_removed(
    users_level: None, tmp_path: Path
) -> None:
    # What an id left in /tmp before this run (a user since gone, another system's files) is
    # not what its bot made: the run plays and leaves it.
    base = own_pair(tmp_path)
    left = [Path(folder, f"left-by-{base}-{os.getpid()}") for folder in ("/tmp", "/var/tmp")]
    for index, path in enumerate(left):
        path.write_text("not a bot's")
        os.chown(path, base + index, base + index)
        os.utime(path, (1e9, 1e9))
    # A change time cannot be set back: the files must be older than the run's start by more
    # than the slack it allows the file system's clock, or they count as made in the run.
    time.sleep(FILE_CLOCK_SLACK + 0.2)
    try:
        run = tournament(tmp_path, base)
        assert run.returncode == 0, run.stderr
        assert all(path.read_text() == "not a bot's" for path in left)
    finally:
        for path in left:
            path.unlink(missing_ok=True)


def test_too_few_bot_users_for_the_games_at_once_is_refused_before_any_game(
    users_level: None, tmp_path: Path
) -> None:
    run = tournament(tmp_path, own_pair(tmp_path), count=2, concurrency=2)
    assert run.returncode == 2, run.stderr
    assert "up to 4 bots running at once, but uid_count gives 2 bot users" in run.stderr
    assert "uid_count = 4" in run.stderr
    assert not (tmp_path / "ids" / "tournament.sqlite").exists()
