"""Ranking a group: points, then head-to-head, then wins; the ties that still matter go to a
play-off, and a play-off still level is settled by seeded lots.

A group's table is ordered by points (win 2, draw 1, loss 0). Players level on points are
ordered by the points they took in the games among themselves (head-to-head), then by their
wins in the group. Players still level form a block; a block matters only where it straddles a
cut (the places that advance, or the places that decide a final's pairings): those players play
a play-off (`groups.py`), and whoever is still level after it is ordered by lots drawn from the
tournament's seed. A block that straddles no cut keeps its players in name order, marked level.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from referee.tournament.standings import DRAW, LOSS, WIN, GameResult

Block = list[str]


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0


def tallies(players: Iterable[str], results: Iterable[GameResult]) -> dict[str, Tally]:
    """Each player's games, W/D/L and points from these results (others' games ignored)."""
    table = {name: Tally() for name in players}
    for game in results:
        for name, pts in game.points().items():
            if name not in table:
                continue
            t = table[name]
            t.games += 1
            t.points += pts
            t.wins += pts == WIN
            t.draws += pts == DRAW
            t.losses += pts == LOSS
    return table


def split(block: Sequence[str], key: Callable[[str], tuple[int, ...]]) -> list[Block]:
    """The block in order of `key` (highest first), cut where the key changes."""
    ordered = sorted(block, key=lambda name: (tuple(-k for k in key(name)), name))
    out: list[Block] = []
    for name in ordered:
        if out and key(out[-1][0]) == key(name):
            out[-1].append(name)
        else:
            out.append([name])
    return out


def rank(players: Sequence[str], results: Sequence[GameResult]) -> list[Block]:
    """Blocks in table order: points, then head-to-head points, then wins."""
    total = tallies(players, results)
    blocks: list[Block] = []
    for level in split(players, by_points(total)):
        if len(level) == 1:
            blocks.append(level)
            continue
        mutual = [g for g in results if g.blue in level and g.orange in level]
        h2h = tallies(level, mutual)
        blocks += split(level, _by_h2h(h2h, total))
    return blocks


def _by_h2h(h2h: dict[str, Tally], total: dict[str, Tally]) -> Callable[[str], tuple[int, ...]]:
    def key(name: str) -> tuple[int, ...]:
        return (h2h[name].points, total[name].wins)

    return key


def by_points(table: dict[str, Tally]) -> Callable[[str], tuple[int, ...]]:
    def key(name: str) -> tuple[int, ...]:
        return (table[name].points,)

    return key


def straddling(blocks: Sequence[Block], cuts: Iterable[int]) -> list[int]:
    """The indexes of the blocks that a cut (a number of places from the top) passes through."""
    out, start = [], 0
    cut_set = set(cuts)
    for i, block in enumerate(blocks):
        if any(start < cut < start + len(block) for cut in cut_set):
            out.append(i)
        start += len(block)
    return out


def by_lots(block: Sequence[str], seed: int, where: str) -> list[str]:
    """The block in an order drawn by lots: fixed by the tournament seed and the place."""
    order = sorted(block)
    random.Random(f"lots/{seed}/{where}").shuffle(order)
    return order
