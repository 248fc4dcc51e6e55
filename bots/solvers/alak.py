"""Perfect play for Alak on small boards: retrograde analysis of the reachable state graph.

A state here is seen from the player to move: his stones, the opponent's stones and the points
banned for him. Both colours follow the same rules, so blue-to-move and orange-to-move states with
mirrored colours share one entry. The analysis ignores the repetition and ply-limit counters:
play that never ends counts as a draw. Values are for the player to move: WIN, LOSS or DRAW, with
`plies` the length of the game under perfect play for decided states (the winner hurries, the
loser delays). Following `best_move` therefore wins without repeating a state.

`solve(size)` builds the table in memory: under a second up to 9 points, a few seconds and about
100 MB for the default 11, half a minute and 0.6 GB for 13 (see `scripts/solve_alak.py`). Only
states reachable from the empty board are in the table; others raise KeyError. Pure: standard
library only. A solved table is kept on disk by `bots.solvers.cache`, which reads it back with a
`SortedKeys` index.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import IntEnum

from protocols.alak.rules import AlakRules, AlakState, Move, place, rules_for
from protocols.base import Side


class Value(IntEnum):
    """The result of perfect play for the player to move."""

    DRAW = 0
    WIN = 1
    LOSS = 2


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


def _explore(rules: AlakRules) -> tuple[list[int], array[int], array[int]]:
    """Every key reachable from the empty board, with children as a flat edge list."""
    keys = [0]
    index = {0: 0}
    starts = array("q", [0])
    edges = array("q")
    row = 0
    while row < len(keys):
        for _, child in children(rules, keys[row]):
            target = index.get(child)
            if target is None:
                target = index[child] = len(keys)
                keys.append(child)
            edges.append(target)
        starts.append(len(edges))
        row += 1
    return keys, starts, edges


def reverse_edges(
    count: int, starts: array[int], edges: array[int]
) -> tuple[array[int], array[int]]:
    """The reverse edge list, grouped by child (a counting sort of the edges)."""
    first = array("q", [0]) * (count + 1)
    for target in edges:
        first[target + 1] += 1
    for row in range(count):
        first[row + 1] += first[row]
    fill = array("q", first)
    sources = array("q", [0]) * len(edges)
    for row in range(count):
        for edge in range(starts[row], starts[row + 1]):
            target = edges[edge]
            sources[fill[target]] = row
            fill[target] += 1
    return first, sources


def solve(size: int) -> Solution:
    """Solve Alak on `size` points (ignoring repetition and ply limit) from the empty board."""
    rules = rules_for(size, 0, 0)
    keys, starts, edges = _explore(rules)
    count = len(keys)
    first, sources = reverse_edges(count, starts, edges)
    values = bytearray(count)
    plies = array("q", [0]) * count
    pending = array("q", (starts[r + 1] - starts[r] for r in range(count)))
    queue: deque[int] = deque()
    full = rules.full
    for row in range(count):
        if pending[row] == 0:  # no legal placement: the stones decide
            own, enemy = (keys[row] & full).bit_count(), (keys[row] >> size & full).bit_count()
            if own != enemy:
                values[row] = Value.WIN if own > enemy else Value.LOSS
                queue.append(row)
    # Breadth-first from the decided ends, so each state is settled by its shortest win (or,
    # for a loss, when its last and longest-resisting escape is refuted).
    while queue:
        row = queue.popleft()
        lost = values[row] == Value.LOSS
        for edge in range(first[row], first[row + 1]):
            parent = sources[edge]
            if values[parent]:
                continue
            if lost:
                values[parent], plies[parent] = Value.WIN, plies[row] + 1
                queue.append(parent)
            else:
                pending[parent] -= 1
                if pending[parent] == 0:
                    values[parent], plies[parent] = Value.LOSS, plies[row] + 1
                    queue.append(parent)
    return Solution(size, {key: row for row, key in enumerate(keys)}, bytes(values), plies)
