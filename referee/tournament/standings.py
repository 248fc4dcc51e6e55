"""Standings from game results: the course's points, wins/draws/losses, bot faults, head-to-head.

Points: win 2, draw 1, loss 0. Only finished games count; void games count for nobody. A game
that ended by a bot fault is a loss for the bot at fault (the record's winner is its opponent);
when neither bot could even start, the record has no winner and both lose (a double forfeit,
with a fault for each), rather than both being given a draw.

Order: points, then Sonneborn-Berger (the sum over a player's games of its points in the game
times the opponent's total points: beating strong players counts more), then wins, then name.
Players equal on all three share a rank.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from protocols.base import Reason, Side

WIN, DRAW, LOSS = 2, 1, 0
ILLEGAL = frozenset({Reason.ILLEGAL_MOVE, Reason.BAD_SYNTAX})
PROTOCOL = frozenset({Reason.LINE_TOO_LONG, Reason.BAD_ENCODING, Reason.OUT_OF_TURN})
BOT_FAULTS = tuple(reason for reason in Reason if reason.is_bot_fault)  # in `Reason`'s order


def ordered_faults(faults: Mapping[Reason, int]) -> dict[Reason, int]:
    """The non-zero fault counts, most frequent first (ties in `Reason`'s order): the order in
    which every view lists them, so a bot's main problem is read first."""
    present = [(reason, faults.get(reason, 0)) for reason in BOT_FAULTS]
    ranked = sorted((pair for pair in present if pair[1]), key=lambda pair: -pair[1])
    return dict(ranked)


def points_text(points: float) -> str:
    """A number of points in words: `1 point`, `0 points`, `2.5 points`."""
    return f"{points:g} point{'' if points == 1 else 's'}"


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game as standings need it (`winner` None: a draw or a double forfeit)."""

    blue: str
    orange: str
    winner: Side | None
    reason: Reason

    def points(self) -> dict[str, int]:
        """Each player's points from this game."""
        if self.winner is None:
            score = LOSS if self.reason.is_bot_fault else DRAW
            return {self.blue: score, self.orange: score}
        won = self.blue if self.winner is Side.BLUE else self.orange
        lost = self.orange if self.winner is Side.BLUE else self.blue
        return {won: WIN, lost: LOSS}

    def at_fault(self) -> list[str]:
        """The players whose fault ended the game."""
        if not self.reason.is_bot_fault:
            return []
        if self.winner is None:
            return [self.blue, self.orange]
        return [self.orange if self.winner is Side.BLUE else self.blue]


@dataclass(slots=True)
class Standing:
    name: str
    rank: int = 0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0
    sonneborn_berger: int = 0
    faults: Counter[Reason] = field(default_factory=Counter)

    @property
    def timeouts(self) -> int:
        return self.faults[Reason.TIMEOUT]

    @property
    def crashes(self) -> int:
        return self.faults[Reason.CRASH] + self.faults[Reason.RESOURCE_LIMIT]

    @property
    def illegal(self) -> int:
        return sum(self.faults[r] for r in ILLEGAL)

    @property
    def protocol(self) -> int:
        return sum(self.faults[r] for r in PROTOCOL)


# (player, opponent) -> (wins, draws, losses) of player against opponent
HeadToHead = dict[tuple[str, str], tuple[int, int, int]]


def compute_standings(players: list[str], results: Iterable[GameResult]) -> list[Standing]:
    """The ranked table; every player appears, even one that has not played yet."""
    table = {name: Standing(name) for name in players}
    games = list(results)
    for game in games:
        for name, pts in game.points().items():
            _count(table[name], pts)
        for name in game.at_fault():
            table[name].faults[game.reason] += 1
    for game in games:
        for name, pts in game.points().items():
            opponent = game.orange if name == game.blue else game.blue
            table[name].sonneborn_berger += pts * table[opponent].points
    ordered = sorted(table.values(), key=_sort_key)
    for i, standing in enumerate(ordered):
        tied = i > 0 and _tie_key(ordered[i - 1]) == _tie_key(standing)
        standing.rank = ordered[i - 1].rank if tied else i + 1
    return ordered


def in_final_order(standings: list[Standing], placings: Sequence[str]) -> list[Standing]:
    """The standings in a staged format's final order, each ranked by its place: a tournament
    has one order, the one its format decides (players it does not place follow, by points)."""
    if not placings:
        return standings
    by_name = {s.name: s for s in standings}
    ordered = [by_name[name] for name in placings if name in by_name]
    ordered += [s for s in standings if s.name not in set(placings)]
    return [replace(s, rank=place) for place, s in enumerate(ordered, 1)]


def _count(standing: Standing, pts: int) -> None:
    standing.games += 1
    standing.points += pts
    if pts == WIN:
        standing.wins += 1
    elif pts == DRAW:
        standing.draws += 1
    else:
        standing.losses += 1


def _tie_key(s: Standing) -> tuple[int, int, int]:
    return (-s.points, -s.sonneborn_berger, -s.wins)


def _sort_key(s: Standing) -> tuple[int, int, int, str]:
    return (*_tie_key(s), s.name)


def head_to_head(results: Iterable[GameResult]) -> HeadToHead:
    """Wins, draws and losses of each player against each opponent it met."""
    tally: dict[tuple[str, str], list[int]] = {}
    for game in results:
        points = game.points()
        for name, pts in points.items():
            opponent = game.orange if name == game.blue else game.blue
            row = tally.setdefault((name, opponent), [0, 0, 0])
            row[{WIN: 0, DRAW: 1, LOSS: 2}[pts]] += 1
    return {pair: (w, d, losses) for pair, (w, d, losses) in tally.items()}
