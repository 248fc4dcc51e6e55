"""Retrograde analysis: a game's whole state graph, solved backwards from its ends.

The one exploration of every Alak solver: the perfect bot's (`bots.solvers.alak`, Baljeu's
rules, on the bot's start-up path) and the offline analysis of the traditional game
(`referee.analysis.alak_solve`). A game gives a start key and a `Step`: for a state's key, its
moves as (move, child) pairs, where a child is the key of the next state or, negative, `-1 - row`
for one of the graph's `ends` fixed end nodes (the rows before the start's). `explore` numbers
every state reachable from the start (its row) and keeps their children as a flat edge list;
`retrograde` settles values from the states whose value is known (`decided`) back to the start.

Values are for the player to move: a state is WIN if one child is a LOSS, LOSS once every child
is a WIN, and DRAW when neither can be forced (endless play, or a decided DRAW). The search runs
breadth-first from the decided states, so a win is settled by its shortest route and a loss when
its longest-resisting escape is refuted: `plies` is the game's length under perfect play (the
winner hurries, the loser delays), which is why following the table never repeats a state.

Pure: standard library only, flat `array`s rather than objects per state, so that 10 million
states fit in memory.
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from enum import IntEnum


class Value(IntEnum):
    """The result of perfect play for the player to move."""

    DRAW = 0
    WIN = 1
    LOSS = 2


Step = Callable[[int], Iterable[tuple[int, int]]]  # key -> (move, child key or -1 - end row)
Progress = Callable[[str, int, int], None]  # (phase, done, total)
REPORT_EVERY = 0x4000  # rows between two progress reports (a power of two: a mask test)


class TooBig(Exception):
    """The state graph outgrew the limit given (`max_states`)."""


def quiet(phase: str, done: int, total: int) -> None:
    """A `Progress` that reports nothing."""


# Graph and Reverse are plain classes: a dataclass costs most of a millisecond to create, at the
# start-up of every perfect Alak bot, which imports this module even when its table is on disk.


class Graph:
    """Every state reachable from a start: rows 0..ends-1 are the end nodes, then the start."""

    __slots__ = ("edges", "index", "keys", "starts")

    def __init__(
        self, keys: list[int], index: dict[int, int], starts: array[int], edges: array[int]
    ) -> None:
        self.keys = keys  # row -> state key (an end row holds -1 - row)
        self.index = index  # state key -> row (end rows not included)
        self.starts = starts  # row -> first edge: its children are edges[starts[row]:starts[row+1]]
        self.edges = edges  # child rows

    def __len__(self) -> int:
        return len(self.keys)

    def leaves(self) -> Iterable[int]:
        """The rows with no move (end rows included)."""
        starts = self.starts
        return (row for row in range(len(self.keys)) if starts[row] == starts[row + 1])


def explore(
    step: Step,
    start: int,
    ends: int = 0,
    progress: Progress = quiet,
    max_states: int | None = None,
) -> Graph:
    """Every state reachable from the key `start` by `step` (raises TooBig past `max_states`)."""
    keys = [-1 - row for row in range(ends)]
    keys.append(start)
    index = {start: ends}
    starts = array("q", [0] * (ends + 1))
    edges = array("q")
    # Bound once: this loop is the perfect bot's start-up on a board without a cached table.
    add_edge, find, add_key, close_row = edges.append, index.get, keys.append, starts.append
    every = REPORT_EVERY - 1
    row = ends
    while row < len(keys):
        for _, child in step(keys[row]):
            if child < 0:
                add_edge(-1 - child)
                continue
            target = find(child)
            if target is None:
                target = index[child] = len(keys)
                add_key(child)
            add_edge(target)
        close_row(len(edges))
        row += 1
        if not row & every:
            progress("exploring", row, len(keys))
            if max_states is not None and len(keys) > max_states:
                raise TooBig(f"more than {max_states:,} states")
    progress("exploring", row, len(keys))
    return Graph(keys, index, starts, edges)


class Reverse:
    """The edges of a `Graph` grouped by child: row's parents are sources[first[row]:first[row+1]]
    (a parent appears once per move it has to the row)."""

    __slots__ = ("first", "sources")

    def __init__(self, first: array[int], sources: array[int]) -> None:
        self.first = first
        self.sources = sources

    def reaches(self, row: int) -> bool:
        """Whether any state has a move to `row`."""
        return self.first[row] != self.first[row + 1]


def reverse(graph: Graph) -> Reverse:
    """The parents of every row (a counting sort of the edges by child)."""
    count, starts, edges = len(graph), graph.starts, graph.edges
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
    return Reverse(first, sources)


def retrograde(
    graph: Graph,
    parents: Reverse,
    decided: Sequence[tuple[int, Value]],
    progress: Progress = quiet,
    phase: str = "solving",
) -> tuple[bytearray, array[int]]:
    """Every row's value and game length (0 for draws and for the `decided` rows themselves).

    `decided` gives the rows without a move whose value the rules fix (end nodes, finished
    games); every other row is solved from its children, and a row without a move that is not
    decided stays a DRAW.
    """
    starts, first, sources = graph.starts, parents.first, parents.sources
    win, loss, every = int(Value.WIN), int(Value.LOSS), REPORT_EVERY - 1  # locals: the hot loop
    count = len(graph)
    values = bytearray(count)
    plies = array("q", [0]) * count
    pending = array("q", (starts[row + 1] - starts[row] for row in range(count)))
    queue: deque[int] = deque()
    for row, value in decided:
        values[row] = value
        if value != Value.DRAW:
            queue.append(row)
    settled = 0
    while queue:
        row = queue.popleft()
        settled += 1
        if not settled & every:
            progress(phase, settled, count)
        lost = values[row] == loss
        for edge in range(first[row], first[row + 1]):
            parent = sources[edge]
            if values[parent]:
                continue
            if lost:
                values[parent], plies[parent] = win, plies[row] + 1
                queue.append(parent)
            else:
                pending[parent] -= 1
                if pending[parent] == 0:
                    values[parent], plies[parent] = loss, plies[row] + 1
                    queue.append(parent)
    progress(phase, count, count)
    return values, plies
