"""Schedules are fair: every pair plays, colours are balanced, rounds are disjoint, and the same
seed always gives the same schedule."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.tournament.config import TournamentConfig
from referee.tournament.formats import make_schedule
from referee.tournament.schedule import ScheduledGame


def config(n: int, games: int, seed: int = 1, **extra: Any) -> TournamentConfig:
    players = [{"name": f"p{i}", "command": "x"} for i in range(n)]
    return TournamentConfig(
        name="t", game="alak", players=players, games_per_pairing=games, seed=seed, **extra
    )


def colour_counts(games: list[ScheduledGame]) -> tuple[Counter[str], Counter[str]]:
    blue = Counter(g.blue for g in games)
    played = Counter(p for g in games for p in g.players)
    return blue, played


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 13), games=st.integers(1, 4), seed=st.integers(0, 10**6))
def test_round_robin_is_fair(n: int, games: int, seed: int) -> None:
    schedule = make_schedule(config(n, games, seed))
    assert [g.number for g in schedule] == list(range(1, len(schedule) + 1))
    pairs = Counter(frozenset(g.players) for g in schedule)
    assert len(pairs) == n * (n - 1) // 2  # every pair meets...
    assert set(pairs.values()) == {games}  # ...the same number of times
    for pair in pairs:  # and colours alternate within a pair
        blues = Counter(g.blue for g in schedule if frozenset(g.players) == pair)
        assert max(blues.values()) - min(blues.get(p, 0) for p in pair) <= games % 2
    # Each player has blue in half its games: exactly, unless it plays an odd number of them.
    blue, played = colour_counts(schedule)
    allowed = 1 if n % 2 == 0 and games % 2 == 1 else 0
    for player in played:
        assert abs(2 * blue[player] - played[player]) <= allowed
    rounds = Counter(g.round for g in schedule)
    for r in rounds:  # nobody plays twice in a round
        players = [p for g in schedule if g.round == r for p in g.players]
        assert len(players) == len(set(players))


def test_even_games_per_pairing_give_every_player_equal_colours() -> None:
    blue, played = colour_counts(make_schedule(config(6, 2)))
    assert all(2 * blue[p] == played[p] for p in played)


def test_the_same_seed_gives_the_same_schedule_and_another_seed_another() -> None:
    assert make_schedule(config(7, 2, seed=5)) == make_schedule(config(7, 2, seed=5))
    first, other = make_schedule(config(7, 2, seed=5)), make_schedule(config(7, 2, seed=6))
    assert [g.seed for g in first] != [g.seed for g in other]
    assert [g.players for g in first] != [g.players for g in other]
    assert len({g.seed for g in first}) == len(first)  # every game its own seed


def test_gauntlet_pairs_challengers_with_everybody_else_only() -> None:
    cfg = config(6, 2, format="gauntlet", challengers=["p0", "p3"])
    schedule = make_schedule(cfg)
    pairs = Counter(frozenset(g.players) for g in schedule)
    expected = {frozenset((c, o)) for c in ("p0", "p3") for o in ("p1", "p2", "p4", "p5")}
    assert set(pairs) == expected and set(pairs.values()) == {2}
    blue, played = colour_counts(schedule)
    assert all(2 * blue[p] == played[p] for p in played)
    odd = make_schedule(config(6, 1, format="gauntlet", challengers=["p0", "p3"]))
    blue, played = colour_counts(odd)
    assert all(abs(2 * blue[p] - played[p]) <= 1 for p in played)
