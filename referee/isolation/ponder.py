"""Fair CPU after an answer: the bot that keeps computing (it ponders) is frozen until asked.

A bot that has used more than its grace of CPU time since its answer is frozen until it is
asked again; one that finishes its bookkeeping within that CPU and blocks on its input is never
stopped, so bots that look at the wall clock after writing their move are not stopped mid-way.
The grace is CPU time, not wall time, so how busy the machine is changes nothing: a spinning bot
is frozen once it has had its grace of CPU, however long the machine took to give it that; a bot
doing 20 ms of bookkeeping is not frozen, however long the machine took to give it those. The
watch reads the bot's CPU every PONDER_POLL seconds after its answer, and stops once the bot is
blocked: not runnable, and less than PONDER_IDLE_CPU of CPU since the last reading.
"""

from __future__ import annotations

from collections.abc import Callable

import trio

from referee.isolation.freezer import Freezer

DEFAULT_FREEZE_GRACE = 0.05
PONDER_POLL = 0.01
PONDER_IDLE_CPU = 0.0005


class PonderWatch:
    """Watches one bot after each answer and freezes it if it ponders; a no-op unless its
    freezer is enabled."""

    def __init__(
        self,
        freezer: Freezer,
        cpu_seconds: Callable[[], float | None],
        runnable: Callable[[], bool],
        grace: float = DEFAULT_FREEZE_GRACE,
    ) -> None:
        self.freezer = freezer
        self.cpu_seconds = cpu_seconds
        self.runnable = runnable
        self.grace = grace
        self._answered = trio.Event()

    def answered(self) -> None:
        """The bot answered (and did nothing wrong): watch what it does now."""
        self._answered.set()

    def thaw(self) -> None:
        """It is asked (or told the game's end): let it run."""
        self.freezer.thaw()

    async def run(self, idle: Callable[[], bool]) -> None:
        """Freeze the bot after each answer once it has used its grace of CPU time since,
        unless `idle()` (not asked, no fault, the game on) has become false by then."""
        if not self.freezer.enabled:
            return
        while True:
            await self._answered.wait()
            self._answered = trio.Event()
            if await self._ponders(idle) and idle():
                self.freezer.freeze()

    async def _ponders(self, idle: Callable[[], bool]) -> bool:
        """Watch the bot after its answer: True once it has used more than its grace of CPU,
        False once it blocks first (or it is asked again, or the game ends)."""
        start = self.cpu_seconds()
        if start is None:  # its CPU cannot be read: freezing after the grace is the fair choice
            await trio.sleep(self.grace)
            return True
        last = start
        while idle():
            await trio.sleep(PONDER_POLL)
            now = self.cpu_seconds()
            if now is None:
                return False  # released: the game is over
            if now - start > self.grace:
                return True
            if now - last < PONDER_IDLE_CPU and not self.runnable():
                return False  # blocked on its input: it costs nothing
            last = now
        return False
