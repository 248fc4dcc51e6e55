"""Swiss pairing and tie-breaks on constructed fields, simulated events and hand-computed values."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.tournament.swiss import (
    Colour,
    Entrant,
    SwissPairingError,
    SwissRound,
    Tiebreaks,
    max_rounds,
    pair_round,
    standings_order,
    tiebreaks,
)

FIELDS = [2, 3, 4, 5, 7, 8, 16, 33]


def fresh(n: int) -> list[Entrant]:
    return [Entrant(f"p{i:02d}", i, 0.0) for i in range(n)]


@dataclass
class Player:
    """A player's running state in a simulated event."""

    rank: int
    score: float = 0.0
    opponents: list[str] = field(default_factory=list)
    colours: list[Colour] = field(default_factory=list)
    byes: int = 0


class Event:
    """A Swiss event driven by `pair_round`, with seeded random results (win 1, draw .5)."""

    def __init__(self, n: int, seed: int, draws: bool = True) -> None:
        self.players = {f"p{i:02d}": Player(i) for i in range(n)}
        self.rng = random.Random(seed)
        self.seed = seed
        self.results = [1.0, 0.5, 0.0] if draws else [1.0, 0.0]
        self.round = 0

    def entrants(self) -> list[Entrant]:
        return [
            Entrant(name, p.rank, p.score, tuple(p.opponents), tuple(p.colours), p.byes)
            for name, p in self.players.items()
        ]

    def play(self) -> SwissRound:
        """Pair the next round, check nobody is paired twice in it, and play it."""
        self.round += 1
        paired = pair_round(self.entrants(), self.round, self.seed)
        seated = [name for pair in paired.pairs for name in pair]
        seated += [paired.bye] if paired.bye else []
        assert sorted(seated) == sorted(self.players)
        for blue, orange in paired.pairs:
            points = self.rng.choice(self.results)
            for name, other, colour, gained in (
                (blue, orange, "blue", points),
                (orange, blue, "orange", 1 - points),
            ):
                player = self.players[name]
                player.opponents.append(other)
                player.colours.append(colour)  # type: ignore[arg-type]
                player.score += gained
        if paired.bye:
            self.players[paired.bye].byes += 1
            self.players[paired.bye].score += 1.0
        return paired


# Round 1 and the bye


@pytest.mark.parametrize("n", FIELDS)
def test_round_one_is_top_half_against_bottom_half(n: int) -> None:
    paired = pair_round(fresh(n), 1, seed=7)
    playing = n - n % 2
    assert paired.bye == (f"p{n - 1:02d}" if n % 2 else None)
    half = playing // 2
    assert len(paired.pairs) == half
    for board, (blue, orange) in enumerate(paired.pairs, 1):
        top, bottom = f"p{board - 1:02d}", f"p{board - 1 + half:02d}"
        # Nobody has a colour yet: the higher-ranked alternates blue, orange, ... down the boards.
        assert (blue, orange) == ((top, bottom) if board % 2 else (bottom, top))


def test_round_one_does_not_depend_on_the_seed_or_the_order() -> None:
    entrants = fresh(16)
    first = pair_round(entrants, 1, seed=0)
    for seed in range(1, 6):
        shuffled = entrants[:]
        random.Random(seed).shuffle(shuffled)
        assert pair_round(shuffled, 1, seed=seed) == first


def test_the_bye_goes_to_the_lowest_ranked_of_the_lowest_group_without_one() -> None:
    field = [
        Entrant("a", 0, 2.0),
        Entrant("b", 1, 1.0),
        Entrant("c", 2, 1.0),
        Entrant("d", 3, 0.0),
        Entrant("e", 4, 0.0, byes=1),  # lowest of all, but has had its bye
    ]
    assert pair_round(field, 3, seed=1).bye == "d"
    # Everyone at the bottom has had a bye: it moves up to the lowest of the next group.
    field[3] = replace(field[3], byes=1)
    paired = pair_round(field, 3, seed=1)
    assert paired.bye == "c"
    assert {frozenset(p) for p in paired.pairs} == {frozenset("ab"), frozenset("de")}


def test_a_second_bye_is_given_only_when_nothing_else_pairs() -> None:
    # c has had the bye, but it has met both a and b: whoever else sat out, c would have to meet
    # the other again, so c sits out a second time.
    field = [
        Entrant("a", 0, 1.0, opponents=("c",)),
        Entrant("b", 1, 1.0, opponents=("c",)),
        Entrant("c", 2, 1.0, opponents=("a", "b"), byes=1),
    ]
    assert pair_round(field, 3, seed=0) == SwissRound((("a", "b"),), "c")


@pytest.mark.parametrize("n", [3, 5, 7, 9])
def test_odd_fields_give_every_bye_to_a_different_player(n: int) -> None:
    event = Event(n, seed=n)
    byes = [event.play().bye for _ in range(max_rounds(n))]
    assert None not in byes
    assert len(set(byes)) == len(byes)


# Score groups, floaters and the Dutch order


def test_floaters_go_to_the_next_group_down() -> None:
    field = [
        Entrant("a", 0, 3.0),
        Entrant("b", 1, 2.0),
        Entrant("c", 2, 2.0),
        Entrant("d", 3, 1.0),
    ]
    # a must float; it meets the top of the group below (b), not d two groups down.
    pairs = {frozenset(p) for p in pair_round(field, 4, seed=0).pairs}
    assert pairs == {frozenset("ab"), frozenset("cd")}


def test_in_an_odd_group_its_lowest_floats_to_the_top_of_the_next() -> None:
    field = [Entrant(f"p{i}", i, 2.0 if i < 3 else 1.0) for i in range(6)]
    pairs = {frozenset(p) for p in pair_round(field, 3, seed=0).pairs}
    assert pairs == {frozenset({"p0", "p1"}), frozenset({"p2", "p3"}), frozenset({"p4", "p5"})}


def test_the_seed_breaks_only_exact_ties() -> None:
    # p0 has met p2, so in this group of four p0-p1 & p2-p3 and p0-p3 & p1-p2 are equally far
    # from the Dutch order (1 + 1 either way) and nobody has a colour: only the seed decides.
    field = [Entrant(f"p{i}", i, 1.0) for i in range(4)]
    field[0] = replace(field[0], opponents=("p2",))
    outcomes = {
        frozenset(frozenset(p) for p in pair_round(field, 2, seed=seed).pairs) for seed in range(30)
    }
    assert outcomes == {
        frozenset({frozenset({"p0", "p1"}), frozenset({"p2", "p3"})}),
        frozenset({frozenset({"p0", "p3"}), frozenset({"p1", "p2"})}),
    }
    assert pair_round(field, 2, seed=5) == pair_round(field[::-1], 2, seed=5)


# Colours


def two(x: tuple[Colour, ...], y: tuple[Colour, ...], x_rank: int = 0) -> tuple[str, str]:
    """Colours of the only pair of a field of x and y."""
    field = [Entrant("x", x_rank, 1.0, colours=x), Entrant("y", 1 - x_rank, 1.0, colours=y)]
    (pair,) = pair_round(field, len(x) + 1, seed=0).pairs
    return pair


def test_colours_follow_the_stronger_preference() -> None:
    # y had orange: it wants blue, x wants orange; both get their wish.
    assert two(("blue",), ("orange",)) == ("y", "x")
    # Both want orange; x (two more blues, absolute) beats y (one more, strong).
    assert two(("blue", "blue"), ("blue",)) == ("y", "x")
    # Both want orange after blue, orange, blue... y has had blue twice in a row: absolute.
    assert two(("blue", "orange", "blue"), ("orange", "blue", "blue")) == ("x", "y")
    # Same history: the higher-ranked player's wish (blue, after orange) is granted.
    assert two(("blue", "orange"), ("blue", "orange")) == ("x", "y")
    assert two(("blue", "orange"), ("blue", "orange"), x_rank=1) == ("y", "x")


def test_equal_wishes_go_to_who_had_orange_in_the_latest_round_they_differ() -> None:
    # Both have one orange more than blue and want blue, neither twice running; reading back from
    # the last round, they first differ two rounds ago, where x had orange: x gets blue, though
    # y is ranked higher.
    x: tuple[Colour, ...] = ("blue", "orange", "orange", "blue", "orange")
    y: tuple[Colour, ...] = ("orange", "orange", "blue", "blue", "orange")
    assert two(x, y, x_rank=1) == ("x", "y")


def test_nobody_gets_a_colour_three_times_running_when_a_pairing_avoids_it() -> None:
    # a and b had blue twice running, c and d orange twice running; the Dutch order would pair
    # a-b and c-d (places 0-2 and 1-3), which would give someone a third blue or orange.
    bb: tuple[Colour, ...] = ("orange", "blue", "blue")
    oo: tuple[Colour, ...] = ("blue", "orange", "orange")
    field = [
        Entrant("a", 0, 1.5, colours=bb),
        Entrant("c", 1, 1.5, colours=oo),
        Entrant("b", 2, 1.5, colours=bb),
        Entrant("d", 3, 1.5, colours=oo),
    ]
    paired = pair_round(field, 4, seed=0)
    assert {blue for blue, _ in paired.pairs} == {"c", "d"}


def test_two_players_two_blues_up_never_meet_even_at_the_cost_of_floats() -> None:
    # a and b lead alone, each with two blues more than oranges: paired together, one would be
    # three up. That outranks score groups, so both float down instead.
    up: tuple[Colour, ...] = ("blue", "orange", "blue", "blue")
    down: tuple[Colour, ...] = ("orange", "blue", "orange", "blue")
    field = [
        Entrant("a", 0, 3.0, colours=up),
        Entrant("b", 1, 3.0, colours=up),
        Entrant("c", 2, 2.0, colours=down),
        Entrant("d", 3, 2.0, colours=down),
    ]
    paired = pair_round(field, 5, seed=0)
    assert {orange for _, orange in paired.pairs} == {"a", "b"}


# Rematches and the bound on rounds


def test_max_rounds() -> None:
    assert [max_rounds(n) for n in range(8)] == [0, 0, 1, 2, 2, 3, 3, 4]
    assert max_rounds(33) == 17


def test_an_impossible_round_raises_and_names_who_is_left() -> None:
    field = [Entrant("a", 0, 3.0, opponents=("b", "c", "d"))]
    field += [Entrant(n, i, 1.0, opponents=("a",)) for i, n in enumerate("bcd", 1)]
    with pytest.raises(SwissPairingError, match=r"round 4: .*left unpaired: .*\ba\b"):
        pair_round(field, 4, seed=0)
    with pytest.raises(SwissPairingError, match="round 2"):
        pair_round([Entrant("x", 0, 1.0, ("y",)), Entrant("y", 1, 0.0, ("x",))], 2, seed=0)


def test_six_players_can_be_stuck_after_max_rounds() -> None:
    # Three rounds across two halves {a,b,c} x {d,e,f}: what is left to play is two triangles,
    # which no round can cover, so the bound max_rounds(6) = 3 cannot be raised.
    halves = ("abc", "def")
    field = [
        Entrant(name, i, 1.5, opponents=tuple(halves[1 - side]))
        for side in (0, 1)
        for i, name in enumerate(halves[side], 3 * side)
    ]
    assert max_rounds(6) == 3
    with pytest.raises(SwissPairingError, match="round 4"):
        pair_round(field, 4, seed=0)


# Simulated events


# Derandomized: the same events on every run, so the share-of-pairs thresholds cannot flicker.
@settings(max_examples=25, deadline=None, derandomize=True)
@given(n=st.sampled_from(FIELDS), seed=st.integers(0, 2**32), draws=st.booleans())
def test_simulated_events_keep_every_rule(n: int, seed: int, draws: bool) -> None:
    event = Event(n, seed, draws)
    met: set[frozenset[str]] = set()
    within = near = played = 0
    for _ in range(max_rounds(n)):
        scores = {name: p.score for name, p in event.players.items()}
        groups = sorted(set(scores.values()), reverse=True)
        paired = event.play()
        assert (paired.bye is None) == (n % 2 == 0)
        for pair in paired.pairs:
            assert frozenset(pair) not in met, f"rematch {pair} in round {event.round}"
            met.add(frozenset(pair))
            apart = abs(groups.index(scores[pair[0]]) - groups.index(scores[pair[1]]))
            within += apart == 0
            near += apart <= 1
            played += 1
    for name, player in event.players.items():
        assert player.byes <= 1, name
        assert abs(player.colours.count("blue") - player.colours.count("orange")) <= 2, name
    # Most pairs are within a score group, and nearly all within one group of it, in fields big
    # enough to have groups to pair in (draws split a field into many small groups).
    if n >= 8:
        assert within / played > (0.4 if draws else 0.55)
        assert near / played > 0.75


@settings(max_examples=15, deadline=None)
@given(n=st.sampled_from([5, 8, 16]), seed=st.integers(0, 2**32), rounds=st.integers(1, 3))
def test_the_same_field_in_any_order_gives_the_same_round(n: int, seed: int, rounds: int) -> None:
    event = Event(n, seed)
    for _ in range(rounds):
        event.play()
    entrants = event.entrants()
    paired = pair_round(entrants, rounds + 1, seed)
    assert pair_round(entrants, rounds + 1, seed) == paired
    random.Random(seed).shuffle(entrants)
    assert pair_round(entrants, rounds + 1, seed) == paired


def matchings(names: list[str]) -> Iterator[list[tuple[str, str]]]:
    """Every way to split an even list into pairs."""
    if not names:
        yield []
        return
    first, rest = names[0], names[1:]
    for i, other in enumerate(rest):
        for tail in matchings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]


def priorities(event: Event, pairs: list[tuple[str, str]], bye: str | None) -> tuple[int, ...]:
    """The three highest tiers, recomputed here: second byes, pairs that would push a colour
    difference to 3, and the sum of (score groups apart)^2 with the bye a group below the last."""
    players = event.players
    groups = sorted({p.score for p in players.values()}, reverse=True)
    group = {name: groups.index(p.score) for name, p in players.items()}

    def difference(name: str) -> int:
        return players[name].colours.count("blue") - players[name].colours.count("orange")

    seconds = players[bye].byes if bye else 0
    over = sum(
        1
        for a, b in pairs
        if min(difference(a), difference(b)) >= 2 or max(difference(a), difference(b)) <= -2
    )
    spread = sum((group[a] - group[b]) ** 2 for a, b in pairs)
    spread += (len(groups) - group[bye]) ** 2 if bye else 0
    return (seconds, over, spread)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(4, 9), seed=st.integers(0, 2**32), rounds=st.integers(1, 3))
def test_the_chosen_round_is_best_by_the_first_tiers(n: int, seed: int, rounds: int) -> None:
    event = Event(n, seed)
    rounds = min(rounds, max_rounds(n) - 1)  # the next round can always be paired
    for _ in range(rounds):
        event.play()
    names = sorted(event.players)
    best: tuple[int, ...] | None = None
    for bye in names if n % 2 else [None]:
        rest = [name for name in names if name != bye]
        for pairs in matchings(rest):
            if any(b in event.players[a].opponents for a, b in pairs):
                continue
            cost = priorities(event, pairs, bye)
            best = cost if best is None or cost < best else best
    paired = pair_round(event.entrants(), rounds + 1, seed)
    assert best is not None
    assert priorities(event, list(paired.pairs), paired.bye) == best


# Bad input


def test_bad_fields_are_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="named twice: a"):
        pair_round([Entrant("a", 0, 0.0), Entrant("a", 1, 0.0)], 1, seed=0)
    with pytest.raises(ValueError, match="not a number"):
        pair_round([Entrant("a", 0, float("nan")), Entrant("b", 1, 0.0)], 1, seed=0)
    with pytest.raises(ValueError, match="start at 1"):
        pair_round(fresh(2), 0, seed=0)
    assert pair_round([], 1, seed=0) == SwissRound((), None)
    assert pair_round(fresh(1), 1, seed=0) == SwissRound((), "p00")


# Tie-breaks

# Five players, three rounds, win 1, draw 1/2, bye 1:
#   round 1: A beats B, C draws D, E has the bye
#   round 2: A draws C, E beats B, D has the bye
#   round 3: D beats A, C beats E, B has the bye
# Final scores: A 1 + 1/2 + 0 = 1.5, B 0 + 0 + 1 = 1, C 1/2 + 1/2 + 1 = 2,
#               D 1/2 + 1 + 1 = 2.5, E 1 + 1 + 0 = 2 (total 9 = 6 games + 3 byes).
SCORES = {"A": 1.5, "B": 1.0, "C": 2.0, "D": 2.5, "E": 2.0}
GAMES = [
    ("A", "B", 1.0, 0.0),
    ("C", "D", 0.5, 0.5),
    ("A", "C", 0.5, 0.5),
    ("E", "B", 1.0, 0.0),
    ("D", "A", 1.0, 0.0),
    ("C", "E", 1.0, 0.0),
]
BYES = {"E": 1, "D": 1, "B": 1}


def test_tiebreaks_by_hand() -> None:
    # Buchholz: opponents' final scores; a bye counts as a dummy opponent with one's own score.
    #   A: B 1 + C 2 + D 2.5 = 5.5            cut-1 drops B's 1       -> 4.5
    #   B: A 1.5 + E 2 + dummy 1 = 4.5       cut-1 drops the bye's 1 -> 3.5
    #   C: D 2.5 + A 1.5 + E 2 = 6           cut-1 drops A's 1.5     -> 4.5
    #   D: C 2 + dummy 2.5 + A 1.5 = 6       cut-1 drops the bye's 2.5 first (not A's 1.5) -> 3.5
    #   E: dummy 2 + B 1 + C 2 = 5           cut-1 drops the bye's 2 -> 3
    # Sonneborn-Berger: points against each opponent times its score; a bye adds nothing.
    #   A: 1*1 (B) + 0.5*2 (C) + 0*2.5 (D) = 2
    #   B: 0*1.5 + 0*2 = 0
    #   C: 0.5*2.5 (D) + 0.5*1.5 (A) + 1*2 (E) = 1.25 + 0.75 + 2 = 4
    #   D: 0.5*2 (C) + 1*1.5 (A) = 2.5
    #   E: 1*1 (B) + 0*2 (C) = 1
    assert tiebreaks(SCORES, GAMES, BYES) == {
        "A": Tiebreaks(5.5, 4.5, 2.0),
        "B": Tiebreaks(4.5, 3.5, 0.0),
        "C": Tiebreaks(6.0, 4.5, 4.0),
        "D": Tiebreaks(6.0, 3.5, 2.5),
        "E": Tiebreaks(5.0, 3.0, 1.0),
    }
    # Without the byes in the mapping, the byes are only points: no dummy opponents.
    assert tiebreaks(SCORES, GAMES)["D"] == Tiebreaks(3.5, 2.0, 2.5)  # cut-1 drops A's 1.5


def test_standings_order_is_score_buchholz_berger_rank() -> None:
    breaks = tiebreaks(SCORES, GAMES, BYES)
    ranks = {name: i for i, name in enumerate("EDCBA")}
    # C and E share 2 points; C's Buchholz 6 beats E's 5.
    assert standings_order(SCORES, breaks, ranks) == ["D", "C", "E", "A", "B"]
    level = {"x": 1.0, "y": 1.0, "z": 1.0}
    flat = {name: Tiebreaks(2.0, 1.0, 1.0) for name in level}
    flat["z"] = Tiebreaks(2.0, 1.0, 1.5)  # same Buchholz, better Sonneborn-Berger
    assert standings_order(level, flat, {"x": 1, "y": 0, "z": 2}) == ["z", "y", "x"]


def test_a_mini_match_counts_as_one_meeting() -> None:
    # a and b played two games (2-0 then 1-1, points 2/1/0) in one round; a also beat c.
    scores = {"a": 5.0, "b": 1.0, "c": 0.0}
    games = [("a", "b", 2.0, 0.0), ("b", "a", 1.0, 1.0), ("a", "c", 2.0, 0.0)]
    breaks = tiebreaks(scores, games)
    # One meeting with b (3 points against its 1) and one with c: Buchholz 1 + 0, cut-1 drops
    # c's 0; Sonneborn-Berger 3*1 + 2*0 = 3. Counted per game, Buchholz would be 2.
    assert breaks["a"] == Tiebreaks(1.0, 1.0, 3.0)
    assert breaks["b"] == Tiebreaks(5.0, 0.0, 5.0)
    with pytest.raises(ValueError, match="d played but has no score"):
        tiebreaks(scores, [("a", "d", 1.0, 0.0)])


def test_brute_force_helper_counts_every_pairing() -> None:
    # The exhaustive check above is only as good as its enumeration: 8 players pair 105 ways.
    assert sum(1 for _ in matchings([str(i) for i in range(8)])) == 105
    assert len({frozenset(map(frozenset, m)) for m in matchings(list("abcdef"))}) == 15
