"""The ladder's scheduler: which games start next. Pure: a `Snapshot` of the store goes in, the
meetings to add come out; no I/O and no clock (the snapshot carries the time left), and its
random choices are drawn from a seed the snapshot carries, so the same store gives the same
schedule.

A meeting is two games between two versions, the colours swapped (the store gives both the
same opening). The policy, for each free slot (docs/arena.md, "The ladder"):

- A meeting is chosen for a version with room for it in its hour (its scheduled games of the
  last hour plus two stay within `max_games_per_version_per_hour`): the subject, below. Its
  partner is one with room too; only when no other version has any is it any active version
  (at its cap or not), so that the cap stops a version's games from flooding the queue
  without keeping a version under its cap (one uploaded late) from its games.
- The guarantee first, when the time left requires it: the meetings still owed (pairs of
  active versions that met fewer than `min_meetings` times) would take, at the recent games'
  length on every slot, at least `URGENCY` of the time left. Then the version owing the most
  meetings meets the partner it has met least.
- Otherwise a version with fewer than `placement_games` games plays a placement meeting: the
  least-played of them meets the opponent nearest the next quantile of the ladder's ratings
  (the median first, then out towards both ends), one it has not met yet where it can.
- Otherwise the version with the fewest games per hour since it became active (every version
  gets games at the same rate; a version active less than `MIN_HOURS` counts as active that
  long) meets a partner drawn with weights falling with the rating difference (a normal
  curve of `RATING_SPREAD` Elo) and with the meetings the pair already had, among the
  versions at most `BALANCE` games ahead of that rate.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from referee.arena.config import ScheduleSettings
from referee.arena.rows import GameKind

Pair = tuple[int, int]  # two version ids, the lower first

RATING_SPREAD = 200.0  # Elo: the weight of a partner falls as exp(-(difference / this)^2 / 2)
BALANCE = 4  # games: a ladder partner is at most this many games ahead of the subject's rate
MIN_HOURS = 1.0  # a version active for less counts as active this long (its rate's divisor)
URGENCY = 0.5  # owed meetings come first once they would take this share of the time left
ASSUMED_GAME_SECONDS = 60.0  # a game's length before any game has been timed


def pair(a: int, b: int) -> Pair:
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True, slots=True)
class Entrant:
    """An active version, as the scheduler sees it."""

    version: int
    rating: float | None = None  # None: not rated yet
    games: int = 0  # its games that count or will (done, running, pending)
    recent: int = 0  # the games the scheduler gave it in the last hour
    hours: float = 0.0  # how long it has been active


@dataclass(frozen=True)
class Snapshot:
    """What the scheduler decides from: the active versions and the ladder's state now."""

    entrants: tuple[Entrant, ...]
    settings: ScheduleSettings
    concurrency: int
    queued: int = 0  # games pending or running now
    met: Mapping[Pair, int] = field(default_factory=dict)  # meetings so far, per pair
    time_left: float | None = None  # seconds to the deadline; None: no deadline
    game_seconds: float | None = None  # the recent games' mean length; None: none timed yet
    draw: int = 0  # the seed of the random choices (the store gives its count of games)


@dataclass(frozen=True, slots=True)
class Meeting:
    """Two games: `first` is blue in the first and orange in the second."""

    first: int
    second: int
    kind: GameKind

    def games(self) -> tuple[Pair, Pair]:
        """(blue, orange) of each of its two games."""
        return (self.first, self.second), (self.second, self.first)


def next_meetings(snapshot: Snapshot) -> list[Meeting]:
    """The meetings to add so that `concurrency` games are running or waiting to (a meeting's
    second game may wait for the next free slot); none at or after the deadline."""
    slots = snapshot.concurrency - snapshot.queued
    if slots <= 0 or (snapshot.time_left is not None and snapshot.time_left <= 0):
        return []
    plan = _Plan(snapshot)
    chosen: list[Meeting] = []
    while 2 * len(chosen) < slots:
        meeting = plan.pick(len(chosen))
        if meeting is None:
            break
        plan.add(meeting)
        chosen.append(meeting)
    return chosen


def placement_quantiles(meetings: int) -> list[float]:
    """The quantiles of the ladder's ratings a new version's placement meetings aim at, in
    order: evenly spread, the middle first, then out towards both ends (lower first)."""
    spread = [(i + 0.5) / meetings for i in range(meetings)]
    return sorted(spread, key=lambda q: (abs(q - 0.5), q))


class _Plan:
    """The snapshot's counts, updated as the meetings of one call are chosen."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.settings = snapshot.settings
        self.snapshot = snapshot
        entrants = {e.version: e for e in snapshot.entrants}  # a version once, whatever came in
        self.ids = sorted(entrants)
        self.rating = {v: e.rating for v, e in entrants.items()}
        self.games = {v: e.games for v, e in entrants.items()}
        self.recent = {v: e.recent for v, e in entrants.items()}
        self.hours = {v: max(e.hours, MIN_HOURS) for v, e in entrants.items()}
        # The snapshot's meetings are read, never copied (a ladder of a thousand versions has
        # tens of thousands of pairs); those added in this call are kept beside them.
        self.added: dict[Pair, int] = {}
        self._owed: int | None = None  # meetings owed for the guarantee, counted when needed
        self._enough: dict[int, int] | None = None  # per version, the partners met enough

    def rate(self, version: int) -> float:
        """Its games per hour active."""
        return self.games[version] / self.hours[version]

    def met_count(self, a: int, b: int) -> int:
        key = pair(a, b)
        return self.snapshot.met.get(key, 0) + self.added.get(key, 0)

    @property
    def owed(self) -> int:
        """The meetings the pairs of entrants still owe for the guarantee."""
        if self._owed is None:
            need, n = self.settings.min_meetings, len(self.ids)
            met = self.snapshot.met.items()
            done = sum(min(k, need) for p, k in met if p[0] in self.games and p[1] in self.games)
            added = sum(self._counted_added(p, k) for p, k in self.added.items())
            self._owed = need * n * (n - 1) // 2 - done - added
        return self._owed

    def _counted_added(self, key: Pair, added: int) -> int:
        need, before = self.settings.min_meetings, self.snapshot.met.get(key, 0)
        return max(0, min(before + added, need) - min(before, need))

    @property
    def enough(self) -> dict[int, int]:
        """Per version, the partners it has met `min_meetings` times."""
        if self._enough is None:
            need, games, added = self.settings.min_meetings, self.games, self.added
            enough = dict.fromkeys(self.ids, 0)
            base = self.snapshot.met
            for (a, b), n in base.items():
                if n + added.get((a, b), 0) >= need and a in games and b in games:
                    enough[a] += 1
                    enough[b] += 1
            for (a, b), n in added.items():
                if (a, b) not in base and n >= need:
                    enough[a] += 1
                    enough[b] += 1
            self._enough = enough
        return self._enough

    def add(self, meeting: Meeting) -> None:
        a, b = meeting.first, meeting.second
        for v in (a, b):
            self.games[v] += 2
            self.recent[v] += 2
        key = pair(a, b)
        before = self.met_count(a, b)
        self.added[key] = self.added.get(key, 0) + 1
        need = self.settings.min_meetings
        if before < need:
            if self._owed is not None:
                self._owed -= 1
            if before + 1 == need and self._enough is not None:
                self._enough[a] += 1
                self._enough[b] += 1

    def pick(self, index: int) -> Meeting | None:
        cap = self.settings.max_games_per_version_per_hour
        # The subject of a meeting (the version the policy serves) needs room in its hour;
        # its partner may be any active version, capped or not: the cap bounds what each
        # version asks for, and never keeps a version under it (a newcomer) from its games.
        eligible = [v for v in self.ids if self.recent[v] + 2 <= cap]
        if not eligible or len(self.ids) < 2:
            return None
        if self._urgent() and (owed := self._owed_meeting(eligible)) is not None:
            return owed
        placing = [v for v in eligible if self.games[v] < self.settings.placement_games]
        if placing:
            subject = min(placing, key=lambda v: (self.games[v], self.recent[v], v))
            partners = self._partners(subject, eligible)
            return self._meeting(subject, self._placement_opponent(subject, partners))
        subject = min(eligible, key=lambda v: (self.rate(v), self.recent[v], v))
        rng = random.Random(f"arena-schedule:{self.snapshot.draw}:{index}")
        partners = self._partners(subject, eligible)
        return self._meeting(subject, self._ladder_partner(subject, partners, rng))

    def _partners(self, subject: int, eligible: list[int]) -> list[int]:
        """Whom `subject` may meet: the versions with room in their hour too, or, when none
        but itself has any, every active version."""
        return eligible if any(v != subject for v in eligible) else self.ids

    def _meeting(self, a: int, b: int) -> Meeting:
        placing = min(self.games[a], self.games[b]) < self.settings.placement_games
        kind = GameKind.PLACEMENT if placing else GameKind.LADDER
        # The lower id is blue first in a pair's even meetings, the higher in its odd ones.
        low, high = pair(a, b)
        first, second = (low, high) if self.met_count(a, b) % 2 == 0 else (high, low)
        return Meeting(first, second, kind)

    # -- the guarantee ----------------------------------------------------------------------

    def _urgent(self) -> bool:
        """Whether the owed meetings, played on every slot, would take `URGENCY` of the time
        left or more: the rate they need is then a good share of what the ladder can play."""
        time_left = self.snapshot.time_left
        if time_left is None or self.owed <= 0:
            return False
        seconds = self.snapshot.game_seconds or ASSUMED_GAME_SECONDS
        needed = 2 * self.owed * seconds / max(1, self.snapshot.concurrency)
        return needed >= URGENCY * time_left

    def _owed_meeting(self, eligible: list[int]) -> Meeting | None:
        """The version owing the most meetings (with room in its hour), with the partner it
        has met least (any active version)."""
        need, enough, recent = self.settings.min_meetings, self.enough, self.recent
        others = len(self.ids) - 1
        owing = [v for v in eligible if enough[v] < others]
        for subject in sorted(owing, key=lambda v: (enough[v], recent[v], v)):
            partners = self._partners(subject, eligible)
            met = {w: self.met_count(subject, w) for w in partners if w != subject}
            partners = [w for w, n in met.items() if n < need]
            if partners:
                partner = min(partners, key=lambda w: (met[w], enough[w], recent[w], w))
                return self._meeting(subject, partner)
        return None

    # -- placement and the ladder ---------------------------------------------------------------

    def _placement_opponent(self, subject: int, eligible: Sequence[int]) -> int:
        """The opponent at the next quantile of the placed versions' ratings (one not met yet
        where it can); before anyone is placed, the least-played other version."""
        others = [v for v in eligible if v != subject]
        placed = self.settings.placement_games
        rated = sorted(
            (v for v in others if self.rating[v] is not None and self.games[v] >= placed),
            key=lambda v: (self.rating[v], v),
        )
        if not rated:
            return min(others, key=lambda v: (self.met_count(subject, v), self.games[v], v))
        meetings = max(1, math.ceil(placed / 2))
        quantile = placement_quantiles(meetings)[min(self.games[subject] // 2, meetings - 1)]
        target = quantile * (len(rated) - 1)
        place = {v: i for i, v in enumerate(rated)}
        return min(rated, key=lambda v: (self.met_count(subject, v), abs(place[v] - target), v))

    def _ladder_partner(self, subject: int, eligible: Sequence[int], rng: random.Random) -> int:
        """A partner near `subject`'s rating, drawn at random with weights, among the versions
        at most `BALANCE` games ahead of what `subject`'s rate would have given them (or of the
        least ahead, when all are further: a version just placed)."""
        rate = self.rate(subject)
        ahead = {v: self.games[v] - rate * self.hours[v] for v in eligible if v != subject}
        limit = max(0.0, min(ahead.values())) + BALANCE + 1e-9
        candidates = [v for v, games in ahead.items() if games <= limit]
        weights = [self._weight(subject, v) for v in candidates]
        total = sum(weights)
        if not total > 0:
            return candidates[rng.randrange(len(candidates))]
        return rng.choices(candidates, weights=weights)[0]

    def _weight(self, subject: int, other: int) -> float:
        mine, theirs = self.rating[subject], self.rating[other]
        gap = 0.0 if mine is None or theirs is None else (mine - theirs) / RATING_SPREAD
        return math.exp(-0.5 * gap * gap) / (1 + self.met_count(subject, other))
