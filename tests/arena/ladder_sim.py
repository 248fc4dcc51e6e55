"""A ladder on simulated time, for the scheduler's tests: versions join (and leave) at given
times, every game takes `game_seconds`, and the scheduler is asked as the server asks it
(whenever a game ends, and every second while a slot is free). A version's rating is its hidden
strength once its placement games are done (None before), which is what the ladder's fit tends
to; nothing here reads a clock or a store."""

from __future__ import annotations

import heapq
from collections import Counter, deque
from dataclasses import dataclass, field

from referee.arena.config import ScheduleSettings
from referee.arena.rows import GameKind
from referee.arena.scheduler import Entrant, Meeting, Pair, Snapshot, next_meetings, pair

HOUR = 3600.0


@dataclass
class SimGame:
    blue: int
    orange: int
    kind: GameKind
    created: float
    started: float | None = None
    finished: float | None = None


@dataclass
class Sim:
    settings: ScheduleSettings
    concurrency: int
    game_seconds: float
    strength: dict[int, float]  # version -> its hidden rating
    joins: dict[int, float] = field(default_factory=dict)  # version -> when it joins (default 0)
    leaves: dict[int, float] = field(default_factory=dict)  # version -> when it stops playing
    deadline: float | None = None
    games: list[SimGame] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)  # every one the scheduler was given
    keep_snapshots: bool = False
    _count: Counter[int] = field(default_factory=Counter)
    _played: Counter[Pair] = field(default_factory=Counter)
    _recent: deque[SimGame] = field(default_factory=deque)
    _pending: deque[SimGame] = field(default_factory=deque)
    _ends: list[tuple[float, int]] = field(default_factory=list)

    def active(self, now: float) -> list[int]:
        return [
            v
            for v in self.strength
            if self.joins.get(v, 0.0) <= now and self.leaves.get(v, float("inf")) > now
        ]

    def snapshot(self, now: float) -> Snapshot:
        while self._recent and self._recent[0].created < now - HOUR:
            self._recent.popleft()
        recent: Counter[int] = Counter()
        for g in self._recent:
            recent[g.blue] += 1
            recent[g.orange] += 1
        placed = self.settings.placement_games
        count = self._count
        entrants = tuple(
            Entrant(
                v,
                self.strength[v] if count[v] >= placed else None,
                count[v],
                recent[v],
                (now - self.joins.get(v, 0.0)) / HOUR,
            )
            for v in self.active(now)
        )
        return Snapshot(
            entrants=entrants,
            settings=self.settings,
            concurrency=self.concurrency,
            queued=len(self._pending) + len(self._ends),
            met={p: n // 2 for p, n in self._played.items()},
            time_left=None if self.deadline is None else self.deadline - now,
            game_seconds=self.game_seconds,
            draw=len(self.games),
        )

    def add(self, meetings: list[Meeting], now: float) -> None:
        for meeting in meetings:
            for blue, orange in meeting.games():
                game = SimGame(blue, orange, meeting.kind, now)
                self.games.append(game)
                self._pending.append(game)
                self._recent.append(game)
                self._count[blue] += 1
                self._count[orange] += 1
                self._played[pair(blue, orange)] += 1

    def run(self, until: float) -> None:
        """Play until `until` seconds: games start in order as slots free up."""
        now = 0.0
        while now < until:
            snap = self.snapshot(now)
            if self.keep_snapshots:
                self.snapshots.append(snap)
            self.add(next_meetings(snap), now)
            while self._pending and len(self._ends) < self.concurrency:
                game = self._pending.popleft()
                game.started = now
                heapq.heappush(self._ends, (now + self.game_seconds, len(self.games)))
                game.finished = now + self.game_seconds
            # The next moment something happens: a game ends, or a second passes idle.
            now = min(self._ends[0][0], now + 1.0) if self._ends else now + 1.0
            while self._ends and self._ends[0][0] <= now:
                heapq.heappop(self._ends)

    def met(self, a: int, b: int, by: float) -> int:
        """Meetings of `a` and `b` finished by time `by`."""
        games = [
            g
            for g in self.games
            if pair(g.blue, g.orange) == pair(a, b) and g.finished is not None and g.finished <= by
        ]
        return len(games) // 2

    def played(self, version: int) -> int:
        return self._count[version]
