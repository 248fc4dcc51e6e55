"""Fair CPU: the bot that is not on move is frozen, so it cannot think on its opponent's time.

On a machine that runs many games at once, a bot that keeps computing while its opponent is on
move ("pondering") takes CPU from every other game's bot that is on move. Freezing stops that:
with the cgroup level the bot's cgroup freezer stops every process of the bot, wherever it went;
otherwise SIGSTOP/SIGCONT go to every process below the bot's supervisor, which is the bot's
whole tree even after `setpgid` or `setsid` (the supervisor is a subreaper and is never
stopped). A bot is frozen only after its first move, so start-up (an interpreter or a JVM
loading) is never frozen, and output written before that first move is still seen as out of
turn. A frozen bot also gets nothing done between the referee receiving its move and sending it
the next one, so what it writes then is only read once it is asked again. Freezing is on by
default and can be switched off per match.
"""

from __future__ import annotations

import os
import signal
from contextlib import suppress

from referee.isolation import proctree
from referee.isolation.cgroups import Cgroup, CgroupError

# A process may fork between the scan and the stop: scan again until a scan finds nothing new
# (a stopped process cannot fork, so this ends); bounded for safety.
MAX_STOP_SCANS = 50


class Freezer:
    """Stops and resumes one bot; a no-op when disabled."""

    def __init__(self, supervisor: int, cgroup: Cgroup | None, enabled: bool) -> None:
        self.supervisor = supervisor
        self.cgroup = cgroup
        self.enabled = enabled
        self.frozen = False

    def freeze(self) -> None:
        if self.enabled and not self.frozen:
            self._set(True)

    def thaw(self) -> None:
        if self.frozen:
            self._set(False)

    def _set(self, frozen: bool) -> None:
        self.frozen = frozen
        if self.cgroup is not None:
            with suppress(CgroupError):
                self.cgroup.freeze(frozen)
                return
        if frozen:
            stop_tree(self.supervisor)
        else:
            signal_tree(self.supervisor, signal.SIGCONT)


def signal_tree(root: int, number: int) -> list[int]:
    """Send `number` to every process below `root` (not `root` itself); returns them."""
    members = proctree.descendants(root)[1:]
    for pid in members:
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, number)
    return members


def stop_tree(root: int) -> None:
    stopped: set[int] = set()
    for _ in range(MAX_STOP_SCANS):
        members = set(signal_tree(root, signal.SIGSTOP))
        if members <= stopped:
            return
        stopped |= members
