"""A user of its own for every running bot (the users level, when the referee runs as root).

Each bot that runs at the same time gets a different numeric user id from a range (no passwd
entries are needed), so it cannot signal the referee or another bot, open another bot's pipes
through /proc, read the files another bot writes (the launcher sets a private umask), or count
towards another bot's process limit. A slot is held with a lock file for as long as its bot
runs, so two referees on one machine never share a user; and because nothing else runs under a
slot's user, killing every process of that user kills everything the bot started, including
processes that left its process group.

The lock file says `held` while its slot is taken and is emptied when the slot is given back, so
a referee that takes a slot looks for processes left under its user (a scan of all of /proc,
which costs milliseconds with a thousand bots running) only when the slot's last holder died
without giving it back. The range is searched from just after the slot last taken, so taking a
slot costs one lock whatever number are taken.
"""

from __future__ import annotations

import fcntl
import os
import signal
import tempfile
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.isolation.proctree import live_processes

DEFAULT_UID_BASE = 60100
# Room for a thousand bots at once (five hundred games) on one machine.
DEFAULT_UID_COUNT = 1000
HELD = b"held\n"
_next_offset = 0  # where the search for a free slot starts: just after the slot last taken


class NoFreeSlot(Exception):
    """Every user id of the range is in use."""


@dataclass
class Slot:
    """A user id held for one bot; `release()` frees it."""

    uid: int
    lock_fd: int

    def release(self) -> None:
        """Give the slot back (after the bot's processes are gone): its lock file says so."""
        if self.lock_fd >= 0:
            with suppress(OSError):
                os.ftruncate(self.lock_fd, 0)
            os.close(self.lock_fd)
            self.lock_fd = -1


def lock_directory() -> Path:
    """Where slot locks live: a directory only root can write, shared by all referees."""
    base = Path("/run") if os.access("/run", os.W_OK) else Path(tempfile.gettempdir())
    path = base / "referee-slots"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


async def acquire_slot(base: int = DEFAULT_UID_BASE, count: int = DEFAULT_UID_COUNT) -> Slot:
    """A free user id of the range, locked; processes left under it are killed first."""
    global _next_offset
    directory = lock_directory()
    for step in range(count):
        offset = (_next_offset + step) % count
        uid = base + offset
        fd = os.open(directory / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        _next_offset = (offset + 1) % count
        try:
            abandoned = os.pread(fd, len(HELD), 0) == HELD
            os.pwrite(fd, HELD, 0)
        except OSError:
            abandoned = True
        if abandoned:
            # Its last holder died with the slot taken: whatever still runs under this user
            # was left by that referee, and goes.
            await kill_user(uid)
        return Slot(uid, fd)
    raise NoFreeSlot(f"all {count} bot users from {base} are in use")


async def kill_user(uid: int, limit: float = 5.0) -> bool:
    """SIGKILL every process of `uid` until none is left; True if that happened in time.

    A process forked between the scan and the kill is found by the next scan; a killed process
    cannot fork any more, so this converges.
    """
    with trio.move_on_after(limit):
        while pids := live_processes(uid=uid):
            for pid in pids:
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            await trio.sleep(0.005)
        return True
    return False


def unreachable_reason(path: Path, uid: int, need: int, *, parents: bool = True) -> str | None:
    """Why user `uid` (with group `uid` and no others) cannot use `path`, or None if it can.

    `need` is a mask of os.R_OK / os.X_OK for the path itself; with `parents`, every directory
    on the way must be searchable too (not so in the sandbox, which mounts the path into fresh
    directories). Permission bits only (no ACLs), which is what this level relies on. A symbolic
    link is checked along its own path and along its target's (exec and open follow it, as with
    a virtualenv's `bin/python` pointing into a home directory).
    """
    path = path.absolute()
    for route in dict.fromkeys([path, path.resolve()]) if parents else ():
        for directory in reversed(route.parents):
            if not _allows(directory, uid, os.X_OK):
                return f"user {uid} cannot enter {directory}"
    if not _allows(path, uid, need):
        what = {os.R_OK: "read", os.X_OK: "execute"}.get(need, "read and execute")
        what = "enter" if path.is_dir() else what
        return f"user {uid} cannot {what} {path}"
    return None


def writable_by(path: Path, uid: int) -> bool:
    """Whether user `uid` (with group `uid`) may make files in the folder `path` (permission
    bits only: a folder everyone may write to, or one given to that user)."""
    return path.is_dir() and _allows(path, uid, os.W_OK | os.X_OK)


def _allows(path: Path, uid: int, need: int) -> bool:
    try:
        st = path.stat()
    except OSError:
        return True  # a missing path is reported by whoever needs it
    if st.st_uid == uid:
        shift = 6
    elif st.st_gid == uid:
        shift = 3
    else:
        shift = 0
    bits = (st.st_mode >> shift) & 0o7
    wanted = (4 if need & os.R_OK else 0) | (2 if need & os.W_OK else 0)
    wanted |= 1 if need & os.X_OK else 0
    return bits & wanted == wanted
