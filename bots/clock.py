"""Time keeping for the bots: when the process started and how long a move may think.

The referee's clock for a move starts when it has written the line the bot answers, and for each
player's first move the start-up of the interpreter counts too. A bot cannot see the referee's
clock, so it measures from the earliest moment the line can have been written (see
`bots.lines`) and, on its first move, from the moment its process was started.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

# The share of a move's budget after which no new search iteration starts: the next one would
# rarely finish, though the root moves it does search can still improve the choice.
SOFT_SHARE = 0.6

# Captured when the bots package is first imported, as a fallback for `process_start`.
_IMPORTED_AT = time.monotonic()


def process_start() -> float:
    """The monotonic time at which this process was started (best effort, never later).

    On Linux the kernel records the start; elsewhere the import of this module is the earliest
    moment we know of.
    """
    try:
        with open("/proc/self/stat", "rb") as stat:
            # The command name (field 2) may hold spaces: the fields after it start past ')'.
            fields = stat.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as uptime:
            up = float(uptime.read().split()[0])
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time in ticks
    except (OSError, ValueError, IndexError):
        return _IMPORTED_AT
    age = max(0.0, up - started)
    return min(_IMPORTED_AT, time.monotonic() - age)


@dataclass(frozen=True, slots=True)
class MoveClock:
    """The time one move may take, measured from `start` (a `time.monotonic()` value).

    `hard` is the moment the search must stop and answer; `soft` the moment after which it
    should not begin another iteration (one more would almost never finish in time).
    """

    start: float
    budget: float

    @property
    def hard(self) -> float:
        return self.start + self.budget - safety_margin(self.budget)

    @property
    def soft(self) -> float:
        return self.start + SOFT_SHARE * self.budget

    def remaining(self) -> float:
        return self.hard - time.monotonic()


def safety_margin(budget: float) -> float:
    """Time kept back from a budget for writing the move and for a busy machine's hiccups."""
    return min(0.25, 0.02 + 0.1 * budget)


def unlimited() -> MoveClock:
    """A clock that never runs out (for analysis and tests of fixed-depth search)."""
    return MoveClock(time.monotonic(), float("inf"))
