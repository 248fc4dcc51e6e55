"""Swiss-system pairing and tie-breaks: pure functions, no I/O (the method is docs/swiss.md).

A round is paired by one maximum-weight matching over every pair that has not met yet (plus a
virtual "bye" player in an odd field). Each edge's weight encodes the pairing rules as separate
tiers, most important first; every tier is scaled above the largest total that all the tiers
below it can reach over a whole round, so no amount of a lower rule can outweigh one unit of a
higher one:

1. a second bye (only when nobody else can take it);
2. a pair whose colour difference would reach 3 (both already at +2, or both at -2);
3. score difference: (score groups apart)^2, the bye being a group below the last;
4. the bye's place: the lowest-ranked player of its group;
5. colour preferences (three in a row, then imbalance, then alternation);
6. Dutch order within a score group (top half against bottom half by rank);
7. the seed, which only breaks what nothing above breaks.

A pair that has met has no edge at all, so a rematch is never made: when the matching cannot pair
everybody, `SwissPairingError` says so instead.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

Colour = Literal["blue", "orange"]

# A colour preference's strength; the weaker of two same-colour preferences is the one refused.
NONE, MILD, STRONG, ABSOLUTE_ROW, ABSOLUTE_DIFF = 0, 1, 2, 3, 4
SEED_RANGE = 1 << 16


@dataclass(frozen=True, slots=True)
class Entrant:
    """One player as the pairing of the next round needs it."""

    name: str
    rank: int  # initial order: 0 is the top seed (config order or ratings)
    score: float  # points so far in this Swiss (any unit; only order and equality matter)
    opponents: tuple[str, ...] = ()  # everybody met so far, in round order
    colours: tuple[Colour, ...] = ()  # colour of the first game of each round played
    byes: int = 0  # byes received so far


@dataclass(frozen=True, slots=True)
class SwissRound:
    """A paired round: (blue of the first game, orange) per board, top boards first."""

    pairs: tuple[tuple[str, str], ...]
    bye: str | None  # who sits out (odd fields), else None


class SwissPairingError(ValueError):
    """No pairing of the round exists without a rematch; the message names who is left."""


@dataclass(frozen=True, slots=True)
class Tiebreaks:
    """A player's tie-break values (see `tiebreaks`)."""

    buchholz: float
    buchholz_cut1: float
    sonneborn_berger: float


def max_rounds(players: int) -> int:
    """The most rounds that can always be paired without a rematch or a second bye, whatever
    the earlier rounds were (each pairing everybody): ceil(players / 2).

    Why: count the bye as a player in an odd field, so m = players rounded up to even play
    perfect matchings. After k rounds each has met k others, so the graph of pairs not yet met
    has every degree m - 1 - k; while that is at least m / 2 (k <= m/2 - 1), Dirac's theorem
    gives it a Hamiltonian cycle, and every other edge of that cycle is a legal round. The bound
    is tight for 6 players: three rounds across two halves of three leave two triangles.
    """
    if players < 2:
        return 0
    return (players + 1) // 2


def most_rounds(players: int) -> int:
    """The most rounds a field can ever play without a rematch: players rounded up to even,
    less one (a round robin's rounds, the bye counted as a player). Rounds past `max_rounds`
    pair only when the earlier rounds left a perfect matching of pairs not yet met."""
    if players < 2:
        return 0
    return players + players % 2 - 1


def pair_round(entrants: Sequence[Entrant], round_number: int, seed: int) -> SwissRound:
    """The pairings of round `round_number` (from 1); `seed` only breaks exact ties."""
    field = _Field.of(entrants, round_number)
    if len(field.players) < 2:
        return SwissRound((), field.players[0].name if field.players else None)
    matched = _match(field, seed)
    bye = next((a for a, b in matched if b is None), None)
    pairs = sorted(((a, b) for a, b in matched if b is not None), key=field.board_key)
    boards = tuple(_colours(field, a, b, board) for board, (a, b) in enumerate(pairs, 1))
    return SwissRound(boards, None if bye is None else field.players[bye].name)


@dataclass(frozen=True, slots=True)
class _Field:
    """The entrants in canonical order (rank, then name) with their score groups."""

    players: tuple[Entrant, ...]
    group: tuple[int, ...]  # score group of each player: 0 is the highest score
    position: tuple[int, ...]  # place within its group, by rank
    sizes: tuple[int, ...]  # players in each group
    round_number: int

    @classmethod
    def of(cls, entrants: Sequence[Entrant], round_number: int) -> _Field:
        if round_number < 1:
            raise ValueError(f"round numbers start at 1, not {round_number}")
        names = [entrant.name for entrant in entrants]
        doubled = sorted({name for name in names if names.count(name) > 1})
        if doubled:
            raise ValueError(f"entrants named twice: {', '.join(doubled)}")
        for entrant in entrants:
            if not math.isfinite(entrant.score):
                raise ValueError(f"{entrant.name}: score {entrant.score} is not a number")
        players = tuple(sorted(entrants, key=lambda e: (e.rank, e.name)))
        scores = sorted({e.score for e in players}, reverse=True)
        group = tuple(scores.index(e.score) for e in players)
        sizes = tuple(group.count(g) for g in range(len(scores)))
        seen = [0] * len(scores)
        position = []
        for g in group:
            position.append(seen[g])
            seen[g] += 1
        return cls(players, group, tuple(position), sizes, round_number)

    def met(self, a: int, b: int) -> bool:
        """Whether two players have met (either one's list is enough)."""
        x, y = self.players[a], self.players[b]
        return y.name in x.opponents or x.name in y.opponents

    def board_key(self, pair: tuple[int, int]) -> tuple[int, int, int]:
        """Top boards first: the higher score of the pair, then the sum, then the best rank."""
        a, b = pair
        return (min(self.group[a], self.group[b]), self.group[a] + self.group[b], min(a, b))


def _match(field: _Field, seed: int) -> list[tuple[int, int | None]]:
    """The maximum-weight matching of the round: (player, partner or None for the bye)."""
    # Deferred: networkx loads only to pair a Swiss round.
    import networkx as nx

    n = len(field.players)
    bye = n if n % 2 else None
    rng = random.Random(f"swiss/{seed}/{field.round_number}")
    edges: list[tuple[int, int, tuple[int, ...]]] = []
    for a in range(n):
        for b in range(a + 1, n):
            if not field.met(a, b):
                edges.append((a, b, (*_pair_costs(field, a, b), rng.randrange(SEED_RANGE))))
        if bye is not None:
            edges.append((a, bye, (*_bye_costs(field, a), rng.randrange(SEED_RANGE))))
    graph = nx.Graph()
    graph.add_nodes_from(range(n + (bye is not None)))
    for a, b, weight in _strict_weights(edges, (n + 1) // 2):
        graph.add_edge(a, b, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    partner: dict[int, int] = {}
    for a, b in matching:
        partner[a], partner[b] = b, a
    left = [p.name for i, p in enumerate(field.players) if i not in partner]
    if left:
        raise SwissPairingError(
            f"round {field.round_number}: no pairing without a rematch exists; "
            f"left unpaired: {', '.join(left)}"
        )
    pairs: list[tuple[int, int | None]] = []
    for a in range(n):
        b = partner[a]
        if b == bye:
            pairs.append((a, None))
        elif a < b:
            pairs.append((a, b))
    return pairs


def _strict_weights(
    edges: list[tuple[int, int, tuple[int, ...]]], pairs: int
) -> list[tuple[int, int, int]]:
    """Costs per tier -> one integer weight each, tiers in strictly separate magnitudes.

    A matching has at most `pairs` edges, so a tier's total is at most pairs * its largest
    cost; each tier's unit is one more than everything below it can add up to. Weights are
    `base - cost`, all positive, and every maximum-cardinality matching has the same number of
    edges, so the heaviest one is the one with the smallest cost, compared tier by tier.
    """
    if not edges:
        return []
    tiers = len(edges[0][2])
    highest = [max(costs[t] for _, _, costs in edges) for t in range(tiers)]
    unit = [1] * tiers
    for t in range(tiers - 2, -1, -1):
        unit[t] = unit[t + 1] * (pairs * highest[t + 1] + 1)
    base = sum(h * u for h, u in zip(highest, unit, strict=True)) + 1
    return [
        (a, b, base - sum(c * u for c, u in zip(costs, unit, strict=True))) for a, b, costs in edges
    ]


def _pair_costs(field: _Field, a: int, b: int) -> tuple[int, ...]:
    """Tiers 1 to 6 for the pair (a, b), a ranked above b."""
    ga, gb = field.group[a], field.group[b]
    (pa, sa), (pb, sb) = _preference(field.players[a]), _preference(field.players[b])
    clash = pa is not None and pa == pb
    over = int(clash and sa == sb == ABSOLUTE_DIFF)
    colour = _colour_cost(min(sa, sb), (len(field.players) + 1) // 2) if clash else 0
    return (0, over, (ga - gb) ** 2, 0, colour, _dutch_cost(field, a, b))


def _bye_costs(field: _Field, a: int) -> tuple[int, ...]:
    """Tiers 1 to 6 for giving `a` the bye: a group below the last, lowest rank first."""
    g = field.group[a]
    below = field.sizes[g] - 1 - field.position[a]
    return (field.players[a].byes, 0, (len(field.sizes) - g) ** 2, below, 0, 0)


def _colour_cost(strength: int, pairs: int) -> int:
    """What refusing a preference of this strength costs: each strength outweighs every
    refusal of the weaker ones in a round together."""
    return 0 if strength == NONE else (pairs + 1) ** (strength - 1)


def _dutch_cost(field: _Field, a: int, b: int) -> int:
    """Distance from the Dutch order: in a group of s, place p meets place p + s // 2; a player
    floating down is its group's lowest and meets the top of the group below."""
    ga, gb, pa, pb = field.group[a], field.group[b], field.position[a], field.position[b]
    if ga == gb:
        low, high = min(pa, pb), max(pa, pb)
        return abs(high - low - field.sizes[ga] // 2)
    (upper, up), (_, down) = sorted(((ga, pa), (gb, pb)))
    return (field.sizes[upper] - 1 - up) + down


def _preference(entrant: Entrant) -> tuple[Colour | None, int]:
    """The colour a player should get next and how strongly (FIDE's absolute/strong/mild)."""
    history = entrant.colours
    if not history:
        return None, NONE
    difference = history.count("blue") - history.count("orange")
    if abs(difference) >= 2:
        return ("orange" if difference > 0 else "blue"), ABSOLUTE_DIFF
    if len(history) >= 2 and history[-1] == history[-2]:
        return _other(history[-1]), ABSOLUTE_ROW
    if difference:
        return ("orange" if difference > 0 else "blue"), STRONG
    return _other(history[-1]), MILD


def _other(colour: Colour) -> Colour:
    return "orange" if colour == "blue" else "blue"


def _colours(field: _Field, a: int, b: int, board: int) -> tuple[str, str]:
    """(blue, orange) for a pair, a ranked above b: the stronger preference is granted."""
    x, y = field.players[a], field.players[b]
    (px, sx), (py, sy) = _preference(x), _preference(y)
    if px != py:
        # Different wishes (or only one has any): both, or the one who has, get theirs.
        x_blue = px == "blue" or py == "orange"
    elif sx != sy:
        x_blue = (sx > sy) == (px == "blue")
    else:
        x_blue = _tie(x, y, px, board)
    return (x.name, y.name) if x_blue else (y.name, x.name)


def _tie(x: Entrant, y: Entrant, wish: Colour | None, board: int) -> bool:
    """Whether x (the higher-ranked) gets blue when both wish the same, equally strongly."""
    dx = x.colours.count("blue") - x.colours.count("orange")
    dy = y.colours.count("blue") - y.colours.count("orange")
    if dx != dy:
        return dx < dy  # fewer blues than oranges so far
    for cx, cy in zip(reversed(x.colours), reversed(y.colours), strict=False):
        if cx != cy:
            return cx == "orange"  # orange in the latest round where they differ
    if wish is None:
        return board % 2 == 1  # no history: the higher-ranked alternates down the boards
    return wish == "blue"  # the higher-ranked player's wish is granted


def tiebreaks(
    scores: Mapping[str, float],
    games: Iterable[tuple[str, str, float, float]],
    byes: Mapping[str, int] | None = None,
) -> dict[str, Tiebreaks]:
    """Buchholz, Buchholz cut-1 and Sonneborn-Berger for every player in `scores`.

    `games` holds (a, b, points of a, points of b) per meeting; entries for the same two players
    are summed into one meeting (several games of a mini-match, given one by one). A bye counts
    for Buchholz as a game against a dummy opponent with the player's own final score, and is
    the first value cut by cut-1; it adds nothing to Sonneborn-Berger (nobody was beaten).
    """
    meetings: dict[tuple[str, str], list[float]] = {}
    for a, b, points_a, points_b in games:
        for player in (a, b):
            if player not in scores:
                raise ValueError(f"{player} played but has no score")
        key, gained = ((a, b), [points_a, points_b]) if a < b else ((b, a), [points_b, points_a])
        total = meetings.setdefault(key, [0.0, 0.0])
        total[0] += gained[0]
        total[1] += gained[1]
    faced: dict[str, list[tuple[str, float]]] = {name: [] for name in scores}
    for (a, b), (points_a, points_b) in meetings.items():
        faced[a].append((b, points_a))
        faced[b].append((a, points_b))
    given = byes or {}
    return {
        name: _breaks(scores, faced[name], given.get(name, 0), scores[name])
        for name in sorted(scores)
    }


def _breaks(
    scores: Mapping[str, float], faced: list[tuple[str, float]], byes: int, own: float
) -> Tiebreaks:
    values = [scores[opponent] for opponent, _ in faced]
    buchholz = sum(values) + own * byes
    # Cut-1 drops the least significant value; an unplayed round's is dropped first.
    cut = buchholz - (own if byes else min(values, default=0.0))
    berger = sum(points * scores[opponent] for opponent, points in faced)
    return Tiebreaks(buchholz, cut, berger)


def standings_order(
    scores: Mapping[str, float], breaks: Mapping[str, Tiebreaks], ranks: Mapping[str, int]
) -> list[str]:
    """Players best first: score, then Buchholz, then Sonneborn-Berger, then initial rank."""

    def key(name: str) -> tuple[float, float, float, int, str]:
        tb = breaks[name]
        return (-scores[name], -tb.buchholz, -tb.sonneborn_berger, ranks[name], name)

    return sorted(scores, key=key)
