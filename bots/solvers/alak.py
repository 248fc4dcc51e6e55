"""Perfect play for Alak on small boards: retrograde analysis of the reachable state graph.

A state here is seen from the player to move: his stones, the opponent's stones and the points
banned for him. Both colours follow the same rules, so blue-to-move and orange-to-move states with
mirrored colours share one entry. The analysis ignores the repetition and ply-limit counters:
play that never ends counts as a draw. Values are for the player to move: WIN, LOSS or DRAW, with
`plies` the length of the game under perfect play for decided states (the winner hurries, the
loser delays). Following `best_move` therefore wins without repeating a state.

`solve(size)` builds the table in memory with `bots.solvers.retrograde` (the exploration the
offline analysis of traditional Alak shares): under a second up to 9 points, a few seconds and
about 100 MB for the default 11, half a minute and 0.6 GB for 13 (see `scripts/solve_alak.py`).
Only states reachable from the empty board are in the table; others raise KeyError. Pure:
standard library only. A solved table is kept on disk by `bots.solvers.cache`, which reads it
back with a `SortedKeys` index.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from bots.solvers.retrograde import Progress, Value, explore, quiet, retrograde, reverse
from protocols.alak.rules import AlakRules, AlakState, Move, place, rules_for
from protocols.base import Side


def pack(size: int, own: int, enemy: int, banned: int) -> int:
    """One int for a state seen from the player to move."""
    return own | enemy << size | banned << 2 * size


def state_key(state: AlakState) -> int:
    """The solver's key of a rule-module state (its colours put in mover-first order)."""
    own, enemy = (state.blue, state.orange)
    if state.to_move is Side.ORANGE:
        own, enemy = enemy, own
    return pack(state.rules.size, own, enemy, state.banned)


def children(rules: AlakRules, key: int) -> list[tuple[int, int]]:
    """(point, child key) for every legal placement, points in increasing order."""
    size, full = rules.size, rules.full
    own, enemy, banned = key & full, key >> size & full, key >> 2 * size
    free = full & ~(own | enemy | banned)
    result = []
    for point in range(size):
        if free >> point & 1:
            new_own, new_enemy, captured = place(rules, own, enemy, point)
            result.append((point, pack(size, new_enemy, new_own, captured)))
    return result


class SortedKeys(Mapping[int, int]):
    """key -> row for keys stored in increasing order (row = position), by binary search.

    A table read from disk uses this instead of a dict: building a dict of every key would cost
    more start-up time than all the lookups of a game together.
    """

    __slots__ = ("ordered",)

    def __init__(self, ordered: array[int]) -> None:
        self.ordered = ordered

    def __getitem__(self, key: int) -> int:
        row = bisect_left(self.ordered, key)
        if row == len(self.ordered) or self.ordered[row] != key:
            raise KeyError(key)
        return row

    def __len__(self) -> int:
        return len(self.ordered)

    def __iter__(self) -> Iterator[int]:
        return iter(self.ordered)


@dataclass(frozen=True, slots=True)
class Solution:
    """The solved table of one board size: for each reachable key, its value and length."""

    size: int
    index: Mapping[int, int]  # key -> row (a dict when solved, `SortedKeys` when read)
    values: bytes  # row -> Value
    plies: array[int]  # row -> plies to the end under perfect play (0 for draws)

    def lookup(self, key: int) -> tuple[Value, int]:
        row = self.index[key]
        return Value(self.values[row]), self.plies[row]

    def value(self, state: AlakState) -> tuple[Value, int]:
        """Value and game length for the player to move in `state` (a rule-module state)."""
        return self.lookup(state_key(state))

    def best_move(self, state: AlakState) -> Move | None:
        """A perfect move in `state`, or None when the player to move cannot place."""
        return _best(self, rules_for(self.size, 0, 0), state_key(state))


def _best(solution: Solution, rules: AlakRules, key: int) -> Move | None:
    """Win fastest, else draw, else lose slowest; ties go to the leftmost point."""
    best: tuple[int, int] | None = None
    choice = None
    for point, child in children(rules, key):
        value, plies = solution.lookup(child)
        # Lower is better: the opponent's LOSS is our win, the opponent's WIN our loss.
        rank = {Value.LOSS: (0, plies), Value.DRAW: (1, 0), Value.WIN: (2, -plies)}[value]
        if best is None or rank < best:
            best, choice = rank, point
    return None if choice is None else Move(choice)


def solve(size: int, progress: Progress = quiet, max_states: int | None = None) -> Solution:
    """Solve Alak on `size` points (ignoring repetition and ply limit) from the empty board;
    `progress` and `max_states` as in `bots.solvers.retrograde.explore`."""
    rules = rules_for(size, 0, 0)
    graph = explore(lambda key: children(rules, key), 0, 0, progress, max_states)
    full = rules.full
    decided = []
    for row in graph.leaves():  # no legal placement: the stones decide
        key = graph.keys[row]
        own, enemy = (key & full).bit_count(), (key >> size & full).bit_count()
        if own != enemy:
            decided.append((row, Value.WIN if own > enemy else Value.LOSS))
    values, plies = retrograde(graph, reverse(graph), decided, progress)
    return Solution(size, graph.index, bytes(values), plies)
