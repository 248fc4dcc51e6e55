"""The CPU time of each of a bot's answers, read off the path of the moves.

An answer's CPU time is measured when it is first read after the answer, not when the answer
arrives, so that the reading stays off the path from a bot's move to its opponent (the match
reads it once it has forwarded the move). What a bot does after its answer therefore counts
towards its next one, and the answers' times add up to all the CPU the bot used; freezing
bounds what it can do between answers to the freeze grace (ponder.py).
"""

from __future__ import annotations

from collections.abc import Callable


class CpuMeter:
    """Charges a bot's CPU time to its answers; `read` gives its CPU seconds so far (None
    where that cannot be told)."""

    def __init__(self, read: Callable[[], float | None]) -> None:
        self._read = read
        self._mark = read()  # its CPU seconds when its last answer was measured (its start)
        self._due = False  # an answer came whose CPU time is not measured yet
        self._last_ms: float | None = None

    def answered(self) -> None:
        """The bot answered: its CPU time since the previous answer is due."""
        self._due = True

    def last_ms(self) -> float | None:
        """The CPU time (ms) from its previous answer to its last one (from its start, for its
        first), where measured."""
        self.settle()
        return self._last_ms

    def settle(self) -> None:
        """Measure the last answer now if it is due (before the bot is asked again)."""
        if not self._due:
            return
        self._due = False
        now = self._read()
        self._last_ms = None
        if now is not None and self._mark is not None:
            self._last_ms = round(max(now - self._mark, 0.0) * 1000, 3)
        self._mark = now
