"""A user of its own for every running bot (the users level, when the referee runs as root).

Each bot that runs at the same time gets a different numeric user id from a range (no passwd
entries are needed), so it cannot signal the referee or another bot, open another bot's pipes
through /proc, read the files another bot writes (the launcher sets a private umask), or count
towards another bot's process limit. A slot is held with a lock file for as long as its bot
runs, so two referees on one machine never share a user; and because nothing else runs under a
slot's user, killing every process of that user kills everything the bot started, including
processes that left its process group.

That holds only where nothing else runs under those ids: before its first game a run refuses a
range (`range_problem`) in which the passwd or group database names an id (a real user's, whose
processes and files the referee would otherwise kill and delete), or an id owns a process that
no referee started (its slot neither held nor left held by a referee that died), or which has
fewer ids than the run has bots at once. What the referee removes after a bot is scoped to that
bot: what its user made in the shared folders since its slot was taken.

The lock file says `held` while its slot is taken and is emptied when the slot is given back, so
a referee that takes a slot looks for processes left under its user (a scan of all of /proc,
which costs milliseconds with a thousand bots running) only when the slot's last holder died
without giving it back. The range is searched from just after the slot last taken, so taking a
slot costs one lock whatever number are taken.
"""

from __future__ import annotations

import fcntl
import grp
import os
import pwd
import signal
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.isolation.proctree import live_processes, process_users

DEFAULT_UID_BASE = 60100
# Room for a thousand bots at once (five hundred games) on one machine.
DEFAULT_UID_COUNT = 1000
HELD = b"held\n"
NSSWITCH = "/etc/nsswitch.conf"
FOREIGN_RECHECK = 1.0  # seconds; see `_foreign_processes`
# Name-service sources whose every entry getpwall and getgrall list.
LISTABLE_SOURCES = frozenset({"files", "compat", "systemd"})
_next_offset = 0  # where the search for a free slot starts: just after the slot last taken


class NoFreeSlot(Exception):
    """Every user id of the range is in use."""


@dataclass
class Slot:
    """A user id held for one bot; `release()` frees it."""

    uid: int
    lock_fd: int
    taken_at: float = 0.0  # when (time.time()): what its user made since is the bot's

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
        return Slot(uid, fd, time.time())
    raise NoFreeSlot(f"all {count} bot users from {base} are in use")


def range_problem(base: int, count: int, bots_at_once: int) -> str | None:
    """Before a run's first game: why the bot users `base`..`base + count - 1` cannot serve a
    run with `bots_at_once` bots running at the same time, with the fix; None if they can."""
    last = base + count - 1
    fix = "[match.isolation] uid_base and uid_count"
    if bots_at_once > count:
        return (
            f"this run has up to {bots_at_once} bots running at once, but uid_count gives "
            f"{count} bot users ({base}-{last}): set uid_count = {bots_at_once} or more in "
            f"[match.isolation], or play fewer games at once"
        )
    taken = [f"{uid} ({who})" for uid, who in _named_ids(base, last).items()]
    if taken:
        return (
            f"bot user ids {base}-{last} are not free: the passwd or group database names "
            f"{_few(taken)}; bots need ids no user or group has, whose processes and files the "
            f"referee may kill and remove: set {fix} to such a range (uid_base = "
            f"{_free_base(count)}, for example)"
        )
    foreign = [f"{uid} (pid {pids[0]})" for uid, pids in _foreign_processes(base, last).items()]
    if foreign:
        return (
            f"bot user ids {base}-{last} are not free: processes that no referee started run "
            f"as {_few(foreign)}; set {fix} to a range no process of the machine runs as"
        )
    return None


def _named_ids(first: int, last: int) -> dict[int, str]:
    """The ids of the range that the passwd or group database names, with their names. Where
    every source of both databases can list its entries (files, systemd), one listing of each
    answers; otherwise (LDAP, SSSD, which may list nothing) each id is asked for."""
    if not _listable():
        return {uid: who for uid in range(first, last + 1) if (who := _named(uid))}
    named: dict[int, str] = {}
    for group in grp.getgrall():
        if first <= group.gr_gid <= last:
            named[group.gr_gid] = f"group {group.gr_name}"
    for user in pwd.getpwall():
        if first <= user.pw_uid <= last:
            named[user.pw_uid] = f"user {user.pw_name}"
    return dict(sorted(named.items()))


def _listable() -> bool:
    """Whether nsswitch.conf gives the passwd and group databases only sources that list every
    entry they have (without the file, the C library reads the files)."""
    try:
        lines = Path(NSSWITCH).read_text().splitlines()
    except OSError:
        return True
    for line in lines:
        words = line.split("#", 1)[0].split()
        if words and words[0] in ("passwd:", "group:"):
            sources = {word for word in words[1:] if not word.startswith("[")}
            if not sources <= LISTABLE_SOURCES:
                return False
    return True


def _named(uid: int) -> str | None:
    """The passwd or group entry's name for id `uid`, if the databases name it."""
    for lookup, kind in ((pwd.getpwuid, "user"), (grp.getgrgid, "group")):
        try:
            return f"{kind} {lookup(uid)[0]}"
        except (KeyError, OverflowError):
            continue
    return None


def _few(items: list[str]) -> str:
    return ", ".join(items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "")


def _free_base(count: int) -> int:
    """A first id above every id the passwd and group databases list (those they can list)."""
    listed = [entry.pw_uid for entry in pwd.getpwall()] + [entry.gr_gid for entry in grp.getgrall()]
    start = DEFAULT_UID_BASE
    for uid in sorted(set(listed)):
        if start <= uid < start + count:
            start = uid + 1
    return start


def _foreign_processes(first: int, last: int) -> dict[int, list[int]]:
    """The processes running as an id of the range whose slot no referee holds, nor left held
    when it died (its leftovers the next holder kills): none of those is a bot's. Looked for
    twice, `FOREIGN_RECHECK` apart: a bot's last processes may still be on their way out
    just after its referee gave the slot back."""
    found = _unheld_processes(first, last)
    if not found:
        return {}
    time.sleep(FOREIGN_RECHECK)
    again = _unheld_processes(first, last)
    stayed = {
        uid: [pid for pid in pids if pid in again.get(uid, [])] for uid, pids in found.items()
    }
    return {uid: pids for uid, pids in stayed.items() if pids}


def _unheld_processes(first: int, last: int) -> dict[int, list[int]]:
    owners: dict[int, list[int]] = {}
    for pid, uids in process_users():
        for uid in uids:
            if first <= uid <= last:
                owners.setdefault(uid, []).append(pid)
    return {uid: pids for uid, pids in owners.items() if not _referees(uid)}


def _referees(uid: int) -> bool:
    """Whether a referee holds the slot of `uid`, or held it when it died."""
    try:
        fd = os.open(lock_directory() / f"{uid}.lock", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True  # held now
        return os.pread(fd, len(HELD), 0) == HELD
    finally:
        os.close(fd)  # and the shared lock with it


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
