"""The ladder's scheduler (pure): which meetings it adds for a snapshot of the store, and what
its policy gives over a simulated term: placement against a spread of the ladder, partners
near one's rating, both colours, the hourly cap, every version at the same rate, and every
pair met `min_meetings` times by the deadline."""

from __future__ import annotations

import statistics
from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.arena.config import ScheduleSettings
from referee.arena.rows import GameKind
from referee.arena.scheduler import (
    BALANCE,
    MIN_HOURS,
    Entrant,
    Meeting,
    Snapshot,
    next_meetings,
    pair,
    placement_quantiles,
)
from tests.arena.ladder_sim import HOUR, Sim

LADDER = ScheduleSettings(placement_games=0, min_meetings=0)


def rules(placement: int, meetings: int, cap: int = 60) -> ScheduleSettings:
    return ScheduleSettings(
        placement_games=placement, min_meetings=meetings, max_games_per_version_per_hour=cap
    )


def placed(n: int, games: int = 10, step: float = 100.0) -> tuple[Entrant, ...]:
    """`n` placed versions 1..n rated 1000, 1000 + step, ..."""
    return tuple(Entrant(v, 1000.0 + step * (v - 1), games) for v in range(1, n + 1))


def test_a_meeting_is_two_games_in_both_colours() -> None:
    meeting = Meeting(3, 7, GameKind.LADDER)
    assert meeting.games() == ((3, 7), (7, 3))


def test_it_fills_the_free_slots_and_no_more() -> None:
    base = Snapshot(placed(10), LADDER, concurrency=6)
    assert len(next_meetings(base)) == 3  # six games
    assert len(next_meetings(Snapshot(placed(10), LADDER, concurrency=5))) == 3
    assert len(next_meetings(Snapshot(placed(10), LADDER, concurrency=6, queued=4))) == 1
    assert next_meetings(Snapshot(placed(10), LADDER, concurrency=6, queued=6)) == []


def test_nothing_is_scheduled_at_or_after_the_deadline_or_without_two_versions() -> None:
    assert next_meetings(Snapshot(placed(10), LADDER, concurrency=4, time_left=0.0)) == []
    assert next_meetings(Snapshot(placed(10), LADDER, concurrency=4, time_left=-5.0)) == []
    assert next_meetings(Snapshot(placed(10), LADDER, concurrency=4, time_left=60.0))
    assert next_meetings(Snapshot(placed(1), LADDER, concurrency=4)) == []
    assert next_meetings(Snapshot((), LADDER, concurrency=4)) == []


def test_the_same_snapshot_gives_the_same_meetings_and_another_draw_may_not() -> None:
    snap = Snapshot(placed(40, step=10.0), LADDER, concurrency=16, draw=7)
    assert next_meetings(snap) == next_meetings(snap)
    draws = {tuple(next_meetings(Snapshot(snap.entrants, LADDER, 16, draw=d))) for d in range(6)}
    assert len(draws) > 1


def test_the_hourly_cap_leaves_out_versions_without_room_for_a_meeting() -> None:
    capped = rules(0, 0, 4)
    entrants = (Entrant(1, 1500.0, 50, recent=3), Entrant(2, 1500.0, 50, recent=3))
    assert next_meetings(Snapshot(entrants, capped, concurrency=4)) == []
    entrants += (Entrant(3, 1500.0, 50, recent=0),)
    found = next_meetings(Snapshot(entrants, capped, concurrency=6))
    # 3 has room for two meetings, with partners at their cap; then it is full too.
    assert len(found) == 2 and all(3 in (m.first, m.second) for m in found)


def test_a_late_version_is_placed_though_every_partner_is_at_its_cap() -> None:
    settings = rules(6, 0, 60)
    early = tuple(Entrant(v, 1400.0 + 50 * v, 120, recent=60, hours=3.0) for v in range(1, 7))
    late = Entrant(7, None, 0, recent=0, hours=0.0)
    found = next_meetings(Snapshot((*early, late), settings, concurrency=6))
    assert len(found) == 3
    assert all(7 in (m.first, m.second) for m in found)
    assert {m.kind for m in found} == {GameKind.PLACEMENT}
    # Its partners are a spread of the ladder, not one version thrice.
    assert len({m.first if m.second == 7 else m.second for m in found}) == 3


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    n = draw(st.integers(0, 14))
    ids = draw(st.lists(st.integers(1, 60), min_size=n, max_size=n, unique=True))
    cap = draw(st.integers(2, 12))
    settings = ScheduleSettings(
        placement_games=draw(st.integers(0, 8)),
        min_meetings=draw(st.integers(0, 3)),
        max_games_per_version_per_hour=cap,
    )
    entrants = tuple(
        Entrant(
            v,
            draw(st.none() | st.floats(500, 2500)),
            draw(st.integers(0, 40)),
            draw(st.integers(0, cap)),
            draw(st.floats(0, 100)),
        )
        for v in ids
    )
    pairs = list(combinations(sorted(ids), 2))
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    met = {p: draw(st.integers(0, 4)) for p in chosen}
    return Snapshot(
        entrants=entrants,
        settings=settings,
        concurrency=draw(st.integers(1, 12)),
        queued=draw(st.integers(0, 12)),
        met=met,
        time_left=draw(st.none() | st.floats(-100, 1e6)),
        game_seconds=draw(st.none() | st.floats(1, 600)),
        draw=draw(st.integers(0, 1000)),
    )


@settings(max_examples=300, deadline=None)
@given(snapshots())
def test_every_schedule_keeps_the_rules(snap: Snapshot) -> None:
    meetings = next_meetings(snap)
    ids = {e.version for e in snap.entrants}
    slots = snap.concurrency - snap.queued
    assert 2 * len(meetings) < max(slots, 0) + 2  # no more games than free slots (+ one waits)
    added: Counter[int] = Counter()
    for m in meetings:
        assert m.first != m.second, "a version never meets itself"
        assert {m.first, m.second} <= ids, "only active versions play"
        added[m.first] += 2
        added[m.second] += 2
    cap = snap.settings.max_games_per_version_per_hour
    recent = {e.version: e.recent for e in snap.entrants}
    for m in meetings:  # one of the two (the one it was chosen for) had room in its hour
        assert min(recent[m.first], recent[m.second]) + 2 <= cap, "the hourly cap holds"
        recent[m.first] += 2
        recent[m.second] += 2
    if len(meetings) < (max(slots, 0) + 1) // 2 and (snap.time_left is None or snap.time_left > 0):
        # It stopped early only for want of a version with room for a meeting, or of two
        # versions at all.
        room = [v for v, n in recent.items() if n + 2 <= cap]
        assert not room or len(recent) < 2
    assert next_meetings(snap) == meetings


def test_placement_meets_a_spread_of_the_ladder_median_first() -> None:
    assert placement_quantiles(3) == [0.5, 1 / 6, 5 / 6]
    settings = ScheduleSettings(placement_games=6, min_meetings=0)
    ladder = placed(19, games=40)  # rated 1000 .. 2800
    new = Entrant(100, None, 0)
    opponents = []
    met: dict[tuple[int, int], int] = {}
    for round_ in range(3):
        snap = Snapshot((*ladder, new), settings, concurrency=2, met=dict(met), draw=round_)
        (meeting,) = next_meetings(snap)
        assert meeting.kind is GameKind.PLACEMENT and 100 in (meeting.first, meeting.second)
        opponent = meeting.second if meeting.first == 100 else meeting.first
        opponents.append(opponent)
        met[pair(100, opponent)] = 1
        new = Entrant(100, None, new.games + 2, new.recent + 2)
    # The median of 19, then the quantiles 1/6 and 5/6 of the ladder's order.
    assert opponents == [10, 4, 16]


def test_placement_before_anyone_is_placed_meets_the_least_played() -> None:
    settings = ScheduleSettings(placement_games=4, min_meetings=0)
    entrants = (Entrant(1, None, 2), Entrant(2, None, 0), Entrant(3, None, 4), Entrant(4, None, 1))
    (first, second) = next_meetings(Snapshot(entrants, settings, concurrency=4))
    assert pair(first.first, first.second) == (2, 4)
    assert first.kind is GameKind.PLACEMENT
    assert 1 in (second.first, second.second)


def test_ladder_partners_are_near_in_rating() -> None:
    ladder = placed(41, games=40, step=25.0)  # 1000 .. 2000
    subject = Entrant(21, 1500.0, 30)  # the least played: it is the one to be paired
    entrants = (*(e for e in ladder if e.version != 21), subject)
    gaps = []
    for d in range(200):
        (meeting, *_) = next_meetings(Snapshot(entrants, LADDER, concurrency=2, draw=d))
        other = meeting.second if meeting.first == 21 else meeting.first
        gaps.append(abs(1000.0 + 25.0 * (other - 1) - 1500.0))
    assert statistics.mean(gaps) < 200  # uniform over the ladder: about 256
    assert max(gaps) <= 500
    assert Counter(gaps).most_common(1)[0][0] <= 100


def test_the_version_with_the_fewest_games_an_hour_plays_next() -> None:
    entrants = (Entrant(1, 1500.0, 90, hours=3.0), Entrant(2, 1500.0, 20, hours=1.0),
                Entrant(3, 1500.0, 80, hours=2.0), Entrant(4, 1500.0, 62, hours=3.0))  # fmt: skip
    (meeting,) = next_meetings(Snapshot(entrants, LADDER, concurrency=2))
    # 2 plays 20 games an hour, the least. Its partner is at most BALANCE games ahead of that
    # rate: 4 (62 games in 3 hours, 2 ahead), not 1 (30 ahead) or 3 (40 ahead).
    assert {meeting.first, meeting.second} == {2, 4}
    assert BALANCE == 4
    # A version active for less than MIN_HOURS counts as active that long: six games in ten
    # minutes is six an hour, the fewest.
    just = Entrant(5, 1500.0, 6, hours=1 / 6)
    (meeting,) = next_meetings(Snapshot((*entrants, just), LADDER, concurrency=2))
    assert 5 in (meeting.first, meeting.second)
    assert MIN_HOURS == 1.0


def test_a_simulated_term_keeps_the_hourly_cap_and_both_colours() -> None:
    settings = rules(6, 1, 20)
    strength = {v: 1000.0 + 37.0 * v for v in range(1, 17)}
    sim = Sim(settings, concurrency=4, game_seconds=60.0, strength=strength)
    sim.run(until=6 * HOUR)
    assert len(sim.games) == 960  # the cap binds: 16 versions x 20 games an hour / 2 x 6 hours
    # Both colours: each pair's games split evenly between its two versions as blue.
    blue: Counter[tuple[int, int]] = Counter((g.blue, g.orange) for g in sim.games)
    for a, b in combinations(strength, 2):
        assert blue[(a, b)] == blue[(b, a)]
    # The hourly cap, in every hour that starts with a game: a version goes past it only as
    # the partner of a version left alone with room: here by one meeting at most.
    for t in sorted({g.created for g in sim.games}):
        hour = Counter(
            v for g in sim.games if t <= g.created < t + HOUR for v in (g.blue, g.orange)
        )
        assert max(hour.values()) <= 20 + 2


def test_every_version_plays_at_the_same_rate_even_one_that_joins_late() -> None:
    settings = rules(6, 0, 1000)
    strength = {v: 1000.0 + 150.0 * v for v in range(1, 13)}
    sim = Sim(settings, 3, game_seconds=45.0, strength=strength, joins={12: 2 * HOUR})
    sim.run(until=6 * HOUR)
    counts = [sim.played(v) for v in range(1, 12)]
    assert min(counts) > 200
    assert max(counts) - min(counts) <= BALANCE + 2, counts
    # The late one, over its four hours, as many games an hour as the others over their six.
    late_rate, others_rate = sim.played(12) / 4, statistics.mean(counts) / 6
    assert abs(late_rate - others_rate) <= 0.05 * others_rate


def test_placement_games_come_first_for_a_version_that_joins_late() -> None:
    settings = ScheduleSettings(placement_games=6, min_meetings=0)
    strength = {v: 1000.0 + 50.0 * v for v in range(1, 21)}
    strength[99] = 1700.0
    sim = Sim(settings, concurrency=4, game_seconds=30.0, strength=strength, joins={99: 2 * HOUR})
    sim.run(until=2 * HOUR + 600)
    late = [g for g in sim.games if 99 in (g.blue, g.orange)]
    assert len(late) >= 6
    assert all(g.kind is GameKind.PLACEMENT for g in late[:6])
    assert all(g.kind is GameKind.LADDER for g in late[6:])
    opponents = [g.orange if g.blue == 99 else g.blue for g in late[:6]]
    ratings = sorted(strength[o] for o in set(opponents))
    assert len(set(opponents)) == 3  # three meetings, three opponents, spread out
    assert ratings[-1] - ratings[0] >= 500


def test_every_pair_meets_min_meetings_times_by_the_deadline() -> None:
    # 14 versions, 91 pairs, 2 meetings each: 364 games of the 720 the slots can play in the
    # time: near-rating pairing alone would leave the far pairs unmet.
    settings = rules(4, 2, 60)
    strength = {v: 800.0 + 100.0 * v for v in range(1, 15)}
    deadline = 3 * HOUR
    sim = Sim(settings, 4, game_seconds=60.0, strength=strength, deadline=deadline)
    sim.run(until=deadline + 600)
    short = [(a, b) for a, b in combinations(strength, 2) if sim.met(a, b, deadline) < 2]
    assert short == []
    assert all(g.created < deadline for g in sim.games)  # nothing new after the deadline


def test_without_a_deadline_far_pairs_are_left_to_the_weights() -> None:
    # The same ladder with no deadline: the guarantee has no time to keep, and the far pairs
    # meet rarely (the test above is what makes them meet).
    settings = rules(4, 2, 60)
    strength = {v: 800.0 + 100.0 * v for v in range(1, 15)}
    sim = Sim(settings, 4, game_seconds=60.0, strength=strength)
    sim.run(until=3 * HOUR)
    short = [(a, b) for a, b in combinations(strength, 2) if sim.met(a, b, 3 * HOUR) < 2]
    assert short
