"""A bot's process tree as /proc shows it: its processes, their CPU time, and what they wait for.

Used where no cgroup keeps count: CPU time per move at the basic and sandbox levels, the last
sweep that kills descendants which left the bot's process group, and the "did you flush?" hint
(a bot that times out while it is itself waiting to read its input almost always forgot to flush
its move). Processes vanish at any moment, so every read tolerates a missing file.
"""

from __future__ import annotations

import os
import platform
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


def alive(pid: int) -> bool:
    """True if `pid` exists and is not a zombie."""
    stat = _read(f"/proc/{pid}/stat")
    return bool(stat) and stat[stat.rindex(")") + 2] != "Z"


def process_cpu_seconds(pid: int) -> float:
    """CPU time of one process: its live threads to the nanosecond, plus its reaped children."""
    total_ns = 0
    with suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            fields = _read(f"/proc/{pid}/task/{task}/schedstat").split()
            if fields:
                total_ns += int(fields[0])
    stat = _read(f"/proc/{pid}/stat")
    reaped = 0.0
    if stat:
        fields = stat[stat.rindex(")") + 2 :].split()
        reaped = (int(fields[13]) + int(fields[14])) / CLOCK_TICKS  # cutime + cstime
    return total_ns / 1e9 + reaped


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


def tree_cpu_seconds(pid: int) -> float:
    return sum(process_cpu_seconds(p) for p in descendants(pid))


def waiting_for_input(pid: int) -> bool:
    """True if some process of the tree is blocked reading its standard input."""
    if READ_SYSCALL is None:
        return False
    for member in descendants(pid):
        fields = _read(f"/proc/{member}/syscall").split()
        if len(fields) >= 2 and fields[0] == str(READ_SYSCALL) and int(fields[1], 16) == 0:
            return True
    return False
