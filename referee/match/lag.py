"""The referee's own lag: how late the event loop wakes up compared with when it meant to.

A bot's timeout is only fair if the referee looked at the clock on time. When the machine is
overloaded (or the referee is busy), the loop can wake up long after a deadline, and a reply that
arrived in time may still be sitting unread in the pipe. `LagMonitor.run` is a cheap ticking task
(one wake-up every `interval`); a match asks `lag_between(start, end)` when a bot times out, and a
timeout that coincides with lag above the threshold voids the game instead of scoring it.
"""

from __future__ import annotations

from collections import deque

import trio

DEFAULT_INTERVAL = 0.05  # seconds between ticks: 20 wake-ups a second, negligible CPU
DEFAULT_HISTORY = 600.0  # seconds of lag samples kept (longer than any move)
MIN_RECORDED_LAG = 0.005  # smaller lags are scheduling noise; not worth keeping


class LagMonitor:
    """Samples the loop's lateness; one per referee process, shared by every match."""

    def __init__(
        self, interval: float = DEFAULT_INTERVAL, history: float = DEFAULT_HISTORY
    ) -> None:
        self.interval = interval
        self.history = history
        # (wake-up time, lag): the loop was stalled during [time - lag, time].
        self._samples: deque[tuple[float, float]] = deque()
        self._last_tick: float | None = None
        self.max_lag = 0.0

    async def run(self) -> None:
        """Tick forever (until cancelled), recording every late wake-up."""
        while True:
            self._last_tick = trio.current_time()
            meant = self._last_tick + self.interval
            await trio.sleep_until(meant)
            now = trio.current_time()
            self.record(now, now - meant)

    def record(self, now: float, lag: float) -> None:
        """The loop woke up at `now`, `lag` seconds late (public so tests can feed samples)."""
        if lag >= MIN_RECORDED_LAG:
            self._samples.append((now, lag))
            self.max_lag = max(self.max_lag, lag)
        while self._samples and self._samples[0][0] < now - self.history:
            self._samples.popleft()

    def lag_between(self, start: float, end: float) -> float:
        """The longest stall that overlapped [start, end], including one still going on now."""
        worst = 0.0
        for woke, lag in reversed(self._samples):
            if woke < start:
                break
            if woke - lag <= end:
                worst = max(worst, lag)
        return max(worst, self._pending_stall(start, end))

    def _pending_stall(self, start: float, end: float) -> float:
        # The ticker may not have run yet after a stall that just ended (the same stall delayed
        # both it and the timeout being handled now): measure that stall from its last tick.
        if self._last_tick is None:
            return 0.0
        stalled_since = self._last_tick + self.interval
        now = trio.current_time()
        if now - stalled_since <= 0 or stalled_since > end or now < start:
            return 0.0
        return now - stalled_since
