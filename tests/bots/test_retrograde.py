"""The shared retrograde solver on small graphs: against a plain round-by-round fixed point,
end nodes, draws by endless play, the state limit and the progress reports."""

from __future__ import annotations

import random

import pytest

from bots.solvers.retrograde import (
    REPORT_EVERY,
    Graph,
    TooBig,
    Value,
    explore,
    retrograde,
    reverse,
)

Children = dict[int, list[int]]  # state -> children (negative: -1 - end row)


def graph_of(children: Children, start: int = 0, ends: int = 0) -> Graph:
    return explore(lambda key: [(i, child) for i, child in enumerate(children[key])], start, ends)


def random_children(rng: random.Random, states: int) -> Children:
    """A random game graph on states 0..n-1 with cycles, self-loops, repeated moves and dead
    ends (the dead ends are decided by their number, below)."""
    return {
        state: [rng.randrange(states) for _ in range(rng.choice((0, 0, 1, 2, 3)))]
        for state in range(states)
    }


def leaf_value(state: int) -> Value:
    return (Value.WIN, Value.LOSS, Value.DRAW)[state % 3]


def by_rounds(children: Children) -> dict[int, tuple[Value, int]]:
    """Values and lengths from the definition: a state is won in k+1 plies if some move reaches
    a state lost in k, lost in k+1 if every move reaches a state won in at most k; what is not
    settled when nothing changes any more is a draw."""
    found = {state: (leaf_value(state), 0) for state, moves in children.items() if not moves}
    found = {state: result for state, result in found.items() if result[0] != Value.DRAW}
    for plies in range(1, 2 * len(children) + 2):
        new = {}
        for state, moves in children.items():
            if state in found or not moves:
                continue
            results = [found.get(child) for child in moves]
            # Settled only in earlier rounds: the first round that settles a state is its length.
            if any(r is not None and r[0] == Value.LOSS for r in results):
                new[state] = (Value.WIN, plies)
            elif all(r is not None and r[0] == Value.WIN for r in results):
                new[state] = (Value.LOSS, plies)
        found |= new
    return {state: found.get(state, (Value.DRAW, 0)) for state in children}


def solved(children: Children) -> dict[int, tuple[Value, int]]:
    graph = graph_of(children)
    decided = [(row, leaf_value(graph.keys[row])) for row in graph.leaves()]
    values, plies = retrograde(graph, reverse(graph), decided)
    return {key: (Value(values[row]), plies[row]) for key, row in graph.index.items()}


@pytest.mark.parametrize("seed", range(40))
def test_random_graphs_agree_with_the_definition(seed: int) -> None:
    rng = random.Random(seed)
    children = random_children(rng, rng.randrange(1, 80))
    found = solved(children)
    expected = by_rounds(children)
    assert found == {state: expected[state] for state in found}


def test_the_winner_hurries_and_the_loser_delays() -> None:
    # 0 wins at once through 1 (lost, no move) or slowly through 2; 3 must choose between
    # losing now (to 4) and later (to 5 -> 6), and every move of 3 loses.
    children = {0: [2, 1], 1: [], 2: [3], 3: [4, 5], 4: [], 5: [6], 6: []}
    leaves = {1: Value.LOSS, 4: Value.WIN, 6: Value.LOSS}
    graph = graph_of(children)
    decided = [(graph.index[state], value) for state, value in leaves.items()]
    values, plies = retrograde(graph, reverse(graph), decided)
    result = {key: (Value(values[row]), plies[row]) for key, row in graph.index.items()}
    assert result[0] == (Value.WIN, 1)
    assert result[5] == (Value.WIN, 1) and result[3] == (Value.LOSS, 2)
    assert result[2] == (Value.WIN, 3)


def test_end_rows_and_endless_play() -> None:
    # Rows 0 and 1 are end nodes (lost, and won, for the player who would move there): 10
    # moves to the lost end, 20 only to the won one, and 11 can move to 20.
    children = {10: [11, -1], 11: [10, 20], 20: [-2]}
    graph = graph_of(children, start=10, ends=2)
    assert graph.keys[:2] == [-1, -2] and graph.index[10] == 2
    values, plies = retrograde(graph, reverse(graph), [(0, Value.LOSS), (1, Value.WIN)])
    row = graph.index
    assert (values[row[10]], plies[row[10]]) == (Value.WIN, 1)
    assert (values[row[20]], plies[row[20]]) == (Value.LOSS, 1)
    assert (values[row[11]], plies[row[11]]) == (Value.WIN, 2)
    # Round and round with no way out: neither side can force anything.
    cycle = graph_of({10: [11], 11: [10, 11]}, 10)
    values, plies = retrograde(cycle, reverse(cycle), [])
    assert list(values) == [Value.DRAW, Value.DRAW] and list(plies) == [0, 0]


def test_parents_are_counted_once_per_move() -> None:
    graph = graph_of({0: [1, 1, 2], 1: [2], 2: []})
    parents = reverse(graph)
    two = graph.index[2]
    assert sorted(parents.sources[parents.first[two] : parents.first[two + 1]]) == [0, 1]
    one = graph.index[1]
    assert list(parents.sources[parents.first[one] : parents.first[one + 1]]) == [0, 0]
    assert parents.reaches(one) and not parents.reaches(graph.index[0])


def test_the_state_limit_and_the_progress_reports() -> None:
    states = 3 * REPORT_EVERY + 5  # a line of states: each has one move, to the next
    reports: list[tuple[str, int, int]] = []

    def line(key: int) -> list[tuple[int, int]]:
        return [(0, key + 1)] if key + 1 < states else []

    def report(phase: str, done: int, total: int) -> None:
        reports.append((phase, done, total))

    graph = explore(line, 0, 0, report)
    assert len(graph) == states
    assert [done for _, done, _ in reports] == [REPORT_EVERY * n for n in (1, 2, 3)] + [states]
    assert {phase for phase, _, _ in reports} == {"exploring"} and reports[-1][2] == states
    with pytest.raises(TooBig, match="more than 100 states"):
        explore(line, 0, max_states=100)
    reports.clear()
    values, plies = retrograde(graph, reverse(graph), [(states - 1, Value.LOSS)], report, "back")
    assert reports[-1] == ("back", states, states) and len(reports) == 4
    # The start is an even number of moves from the lost end: lost, after every move of it.
    assert (states - 1) % 2 == 0 and (values[0], plies[0]) == (Value.LOSS, states - 1)
