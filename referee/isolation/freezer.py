"""Fair CPU: the bot that is not on move is frozen, so it cannot think on its opponent's time.

On a machine that runs many games at once, a bot that keeps computing while its opponent is on
move ("pondering") takes CPU from every other game's bot that is on move. Freezing stops that:
with the cgroup level the bot's cgroup freezer stops every process of the bot, wherever it went;
otherwise SIGSTOP/SIGCONT go to its process group. A bot is frozen only after its first move, so
start-up (an interpreter or a JVM loading) is never frozen, and output written before that first
move is still seen as out of turn. A frozen bot also gets nothing done between the referee
receiving its move and sending it the next one, so what it writes then is only read once it is
asked again. Freezing is on by default and can be switched off per match.
"""

from __future__ import annotations

import os
import signal
from contextlib import suppress

from referee.isolation.cgroups import Cgroup, CgroupError


class Freezer:
    """Stops and resumes one bot; a no-op when disabled."""

    def __init__(self, pgid: int, cgroup: Cgroup | None, enabled: bool) -> None:
        self.pgid = pgid
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
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, signal.SIGSTOP if frozen else signal.SIGCONT)
