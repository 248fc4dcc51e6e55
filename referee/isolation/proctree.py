"""A bot's process tree as /proc shows it: its processes, their CPU time, and what they wait for.

Used where no cgroup keeps count: CPU time per move at the basic and sandbox levels, the last
sweep that kills descendants which left the bot's process group, and the "did you flush?" hint
(a bot that times out while it is itself waiting to read its input almost always forgot to flush
its move). Processes vanish at any moment, so every read tolerates a missing file.
"""

from __future__ import annotations

import os
import platform
import time
from contextlib import suppress

import trio

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# The read(2) system call number per machine, for /proc/<pid>/syscall.
# How long to wait for a killed process group to disappear.
GROUP_EXIT_WAIT = 2.0
READ_SYSCALL = {"x86_64": 0, "aarch64": 63, "arm64": 63, "riscv64": 63}.get(platform.machine())


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def children(pid: int) -> list[int]:
    found: list[int] = []
    with suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            found += [int(c) for c in _read(f"/proc/{pid}/task/{task}/children").split()]
    return found


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it (a snapshot: it may change at once)."""
    seen: list[int] = []
    todo = [pid]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.append(current)
        todo += children(current)
    return seen


def any_runnable(pids: list[int]) -> bool:
    """Whether a thread of one of `pids` is running or waiting for a CPU (state R)."""
    for pid in pids:
        with suppress(OSError):
            for task in os.listdir(f"/proc/{pid}/task"):
                stat = _read(f"/proc/{pid}/task/{task}/stat")
                if stat and stat[stat.rindex(")") + 2] == "R":
                    return True
    return False


def alive(pid: int) -> bool:
    """True if `pid` exists and is not a zombie."""
    stat = _read(f"/proc/{pid}/stat")
    return bool(stat) and stat[stat.rindex(")") + 2] != "Z"


def process_cpu_seconds(pid: int) -> float:
    """CPU time of one process: its threads, living and ended, plus its reaped children; 0.0
    once it is gone."""
    try:
        return process_cpu_clock(pid) + _reaped_seconds(_read(f"/proc/{pid}/stat").encode())
    except (OSError, ValueError, IndexError):
        return 0.0


def live_processes(*, pgid: int | None = None, uid: int | None = None) -> list[int]:
    """Live (not zombie) processes of process group `pgid`, or whose real or effective user is
    `uid`: the one scan of all of /proc, for the members that left a bot's tree."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as f:
                status = f.read()
        except OSError:
            continue
        if b"\nState:\tZ" in status:
            continue
        if (pgid is not None and _field(status, b"NSpgid")[:1] == [str(pgid).encode()]) or (
            uid is not None and str(uid).encode() in _field(status, b"Uid")[:2]
        ):
            found.append(int(entry.name))
    return found


def process_users() -> list[tuple[int, set[int]]]:
    """Each live (not zombie) process with its real and effective user ids: one scan of /proc."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as f:
                status = f.read()
        except OSError:
            continue
        if b"\nState:\tZ" not in status:
            found.append((int(entry.name), {int(uid) for uid in _field(status, b"Uid")[:2]}))
    return found


def _field(status: bytes, name: bytes) -> list[bytes]:
    """The values of one `Name:\tv1\tv2` line of /proc/<pid>/status."""
    start = status.find(b"\n" + name + b":")
    if start < 0:
        return []
    return status[start + len(name) + 2 : status.find(b"\n", start + 1)].split()


def group_has_live_members(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # Members exist, but they may all be zombies already (waiting for init to reap them).
    return bool(live_processes(pgid=pgid))


async def wait_group_gone(pgid: int, limit: float = GROUP_EXIT_WAIT) -> bool:
    """Wait until no live process of the group is left (SIGKILL is not instantaneous).

    Descendants are not our children, so they cannot be waited for; poll briefly instead.
    """
    with trio.move_on_after(limit):
        while group_has_live_members(pgid):
            await trio.sleep(0.005)
        return True
    return False


# MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) of <linux/posix-timers.h>: the clock id of a
# process's CPU clock (all its threads, living and ended, to the nanosecond), which any process
# may read, and for well under a microsecond (clock_getcpuclockid(3) computes the same).
CPUCLOCK_SCHED = 2


def process_cpu_clock(pid: int) -> float:
    """CPU seconds of `pid` by its kernel CPU clock; OSError once it is gone."""
    return time.clock_gettime((~pid << 3) | CPUCLOCK_SCHED)


class TreeCpu:
    """The CPU time of a process tree, read after every move where no cgroup keeps count.

    A full scan of the tree reads two /proc files per thread; this keeps the members it found
    and reads each one's CPU clock, plus (from a kept descriptor) its `stat`: the CPU of the
    children it reaped, and how many threads it has. The tree is scanned again only when a
    member's main thread lists a child not known yet, or a member has other threads (a child
    forked from another thread shows only in that thread's list), or a member ended.
    """

    def __init__(self, root: int) -> None:
        self.root = root
        self._members: dict[int, tuple[int, int]] = {}  # pid -> (stat fd, children fd)
        self._rescan()

    def seconds(self) -> float:
        total = self._sum(strict=True)
        if total is None:  # the tree may have changed: scan it and count what is there now
            self._rescan()
            total = self._sum(strict=False)
        assert total is not None
        return total

    def close(self) -> None:
        for fds in self._members.values():
            for fd in fds:
                with suppress(OSError):
                    os.close(fd)
        self._members = {}

    def _sum(self, strict: bool) -> float | None:
        """The members' CPU time; None (when `strict`) if the tree may have changed."""
        total = 0.0
        for pid, (stat_fd, children_fd) in self._members.items():
            try:
                stat = os.pread(stat_fd, 1024, 0)
                listed = os.pread(children_fd, 4096, 0).split() if strict else []
                total += process_cpu_clock(pid) + _reaped_seconds(stat)
            except OSError:  # it ended: its time moved to whoever reaped it
                if strict:
                    return None
                continue
            if strict and (_threads(stat) > 1 or any(int(c) not in self._members for c in listed)):
                return None
        return total

    def _rescan(self) -> None:
        self.close()
        for pid in descendants(self.root):
            try:
                stat_fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                children_fd = os.open(
                    f"/proc/{pid}/task/{pid}/children", os.O_RDONLY | os.O_CLOEXEC
                )
            except OSError:
                os.close(stat_fd)
                continue
            self._members[pid] = (stat_fd, children_fd)


def _stat_fields(stat: bytes) -> list[bytes]:
    """The fields of /proc/<pid>/stat after the command name (which may hold spaces)."""
    return stat[stat.rindex(b")") + 2 :].split()


def _reaped_seconds(stat: bytes) -> float:
    fields = _stat_fields(stat)
    return (int(fields[13]) + int(fields[14])) / CLOCK_TICKS  # cutime + cstime


def _threads(stat: bytes) -> int:
    return int(_stat_fields(stat)[17])


def waiting_for_input(pid: int) -> bool:
    """True if some process of the tree is blocked reading its standard input."""
    if READ_SYSCALL is None:
        return False
    for member in descendants(pid):
        fields = _read(f"/proc/{member}/syscall").split()
        if len(fields) >= 2 and fields[0] == str(READ_SYSCALL) and int(fields[1], 16) == 0:
            return True
    return False
