"""Who can be rated against whom: the components of the played graph, the groups whose maximum
likelihood ratings are finite against each other, and which kinds' parameters the games pin.

A **component** is a set of players joined by games (any result): players of two components
never met, so nothing compares them. Inside a component, the **result graph** has an arrow from
the winner to the loser of every decisive game and arrows both ways for a draw. Its strongly
connected components are the **groups** (Zermelo's and Ford's condition): the likelihood keeps
every rating difference inside a group finite, while between groups it grows without bound, since
moving a group that was never beaten by another further above it makes every game between them
likelier. The **core** of a component is its group with the most games inside it (of two players
or more); a group the core cannot reach by arrows but that reaches the core is infinitely above
it (`ABOVE`: flagged "unbeaten", or "above" if it lost to a group further above), one the core
reaches but that cannot reach the core infinitely below (`BELOW`: "winless", or "below"), and
one neither way is `UNBOUNDED` (any offset fits). A component without a core (no two players
beat each other both ways, or drew) has every player flagged by its own games: no loss `ABOVE`,
no win `BELOW`, else `UNBOUNDED`.

This holds with the kinds' advantages and margins fixed, which the tests here make sure of: a
kind's draw margin is pinned when some (first, second) cell of it holds both a first mover's and
a second mover's win (the margin cannot then grow without making one of them less likely), its
advantage when some two players have, in both colours, a cell with a draw or with both winners
(its x is then held at 0 both ways, which fixes the advantage). A kind that fails a test has that
parameter kept finite by the prior instead (`rating_fit`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, connected_components

from referee.stats.rating_input import Cells, Mask
from referee.stats.rating_terms import Ints

FINITE, ABOVE, BELOW, UNBOUNDED = 0, 1, 2, 3  # a player's place against its component's core


@dataclass(frozen=True)
class Structure:
    component: Ints  # per player: its component, numbered biggest first
    group: Ints  # per player: its group (strongly connected component of the result graph)
    core: Ints  # per component: its core group, -1 if it has none
    place: Ints  # per player: FINITE (in the core), ABOVE, BELOW or UNBOUNDED
    games: Ints  # per player: games played

    @property
    def components(self) -> int:
        return len(self.core)

    def internal(self, cells: Cells) -> Mask:
        """The cells whose two players are in one group: those the likelihood is finite on."""
        inside: Mask = self.group[cells.first] == self.group[cells.second]
        return inside


def _graph(cells: Cells, players: int, weights: Ints | None = None) -> sp.csr_matrix:
    rows = np.concatenate([cells.first, cells.second])
    cols = np.concatenate([cells.second, cells.first])
    data = np.ones(len(rows)) if weights is None else weights.astype(np.float64)
    return sp.csr_matrix((data, (rows, cols)), shape=(players, players))


def _result_graph(cells: Cells, players: int) -> sp.csr_matrix:
    """An arrow from winner to loser; a draw both ways."""
    wins, draws, losses = cells.counts[:, 0] > 0, cells.counts[:, 1] > 0, cells.counts[:, 2] > 0
    forward = wins | draws  # first -> second
    backward = losses | draws  # second -> first
    rows = np.concatenate([cells.first[forward], cells.second[backward]])
    cols = np.concatenate([cells.second[forward], cells.first[backward]])
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(players, players))


def structure(cells: Cells, players: int) -> Structure:
    per_cell = cells.counts.sum(axis=1)
    games = (
        np.bincount(cells.first, per_cell, players) + np.bincount(cells.second, per_cell, players)
    ).astype(np.int64)
    _, raw = connected_components(_graph(cells, players), directed=False)
    component = _biggest_first(raw)
    results = _result_graph(cells, players)
    _, group = connected_components(results, directed=True, connection="strong")
    group = group.astype(np.int64)
    inside = group[cells.first] == group[cells.second]
    groups = int(group.max()) + 1 if players else 0
    group_games = np.bincount(group[cells.first[inside]], per_cell[inside], groups)
    group_size = np.bincount(group, minlength=groups)
    core = np.full(int(component.max()) + 1 if players else 0, -1, dtype=np.int64)
    place = np.full(players, FINITE, dtype=np.int64)
    for c in range(len(core)):
        members = np.flatnonzero(component == c)
        present = np.unique(group[members])
        big = present[group_size[present] > 1]
        if len(big) == 0:
            if len(members) > 1:
                place[members] = _own_record(cells, members, players)
            continue
        best = big[np.lexsort((big, -group_size[big], -group_games[big]))[0]]
        core[c] = best
        place[members] = _against_core(results, members, group, best)
    return Structure(component, group, core, place, games)


def _biggest_first(raw: Ints) -> Ints:
    """Components renumbered by size, biggest first (ties: by their first player)."""
    if len(raw) == 0:
        return raw.astype(np.int64)
    sizes = np.bincount(raw)
    first_seen = np.full(len(sizes), len(raw))
    np.minimum.at(first_seen, raw, np.arange(len(raw)))
    order = np.lexsort((first_seen, -sizes))
    renumber = np.empty(len(sizes), dtype=np.int64)
    renumber[order] = np.arange(len(sizes))
    found: Ints = renumber[raw]
    return found


def _against_core(results: sp.csr_matrix, members: Ints, group: Ints, core: int) -> Ints:
    start = int(members[group[members] == core][0])
    below = np.zeros(results.shape[0], dtype=bool)
    above = np.zeros(results.shape[0], dtype=bool)
    # The core reaches those it (transitively) beat; those that beat it reach the core.
    below[breadth_first_order(results, start, return_predecessors=False)] = True
    above[breadth_first_order(results.T.tocsr(), start, return_predecessors=False)] = True
    place = np.full(len(members), UNBOUNDED, dtype=np.int64)
    place[above[members]] = ABOVE
    place[below[members]] = BELOW
    place[group[members] == core] = FINITE
    return place


def record(cells: Cells, players: int) -> tuple[Ints, Ints]:
    """Per player: games won, games lost."""
    won = np.bincount(cells.first, cells.counts[:, 0], players) + np.bincount(
        cells.second, cells.counts[:, 2], players
    )
    lost = np.bincount(cells.first, cells.counts[:, 2], players) + np.bincount(
        cells.second, cells.counts[:, 0], players
    )
    return won.astype(np.int64), lost.astype(np.int64)


def _own_record(cells: Cells, members: Ints, players: int) -> Ints:
    won, lost = record(cells, players)
    place = np.full(len(members), UNBOUNDED, dtype=np.int64)
    place[lost[members] == 0] = ABOVE
    place[won[members] == 0] = BELOW
    return place


@dataclass(frozen=True)
class KindTests:
    """Per kind: whether it has draws, and whether the games pin its margin and advantage."""

    draws: Mask
    margin_pinned: Mask
    advantage_pinned: Mask


def kind_tests(cells: Cells, players: int, kinds: int) -> KindTests:
    first, draw, second = (cells.counts[:, j] > 0 for j in range(3))
    draws = np.bincount(cells.kind[draw], minlength=kinds) > 0
    both = first & second
    margin_pinned = np.bincount(cells.kind[both], minlength=kinds) > 0
    equal = both | draw
    key = (cells.first * players + cells.second) * kinds + cells.kind
    reverse = (cells.second * players + cells.first) * kinds + cells.kind
    twice = equal & np.isin(reverse, key[equal])
    advantage_pinned = np.bincount(cells.kind[twice], minlength=kinds) > 0
    return KindTests(draws, margin_pinned, advantage_pinned)
