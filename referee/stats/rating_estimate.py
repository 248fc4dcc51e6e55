"""The rating model's numbers, before they become a report: the fit of each group's games, the
placing of the groups whose maximum likelihood is infinite, and the ratings' reference (each
component's core mean, or the anchor).

Rated separately (the default), the likelihood is maximised over the games inside the groups
(`rating_graph`): games between two groups have probability 1 at the supremum, so they say
nothing more of the finite differences. Each group's first player is held at 0 while fitting
(the likelihood sees only differences); the core of each component is then shifted to average 0.
Players outside the core have infinite maximum likelihood ratings: to show a number at all, each
of their groups is placed by the posterior mode of its shift, with a normal prior (sd
`prior_sd`) on its players' ratings, every other rating held. Joined, every rating has that
prior and all games are fitted at once (BayesElo's way): the prior makes the components'
ratings comparable by putting each component's average near 0, nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.stats.rating_fit import Factor, Setup, fit
from referee.stats.rating_graph import FINITE, KindTests, Structure
from referee.stats.rating_input import Cells, Mask
from referee.stats.rating_terms import Floats, Ints


@dataclass(frozen=True)
class Estimate:
    ratings: Floats  # per player, Elo, on the final scale (nan: no games)
    advantage: Floats  # per kind
    margin: Floats  # per kind
    position: Ints  # per player: its place among the main fit's free parameters, -1 if none
    weights: list[Floats]  # per component (joined: one): the reference over free parameters
    factor: Factor
    setup: Setup  # the main fit's, for the bootstrap
    theta: Floats  # the main fit's parameters
    laplace: Mask  # per player: its interval is Laplace's (a finite maximum, or joined)
    converged: bool


def main_setup(
    cells: Cells, players: int, kinds: int, st: Structure, tests: KindTests, joined: bool,
    prior_sd: float,
) -> Setup:  # fmt: skip
    size = players + 2 * kinds
    free = np.zeros(size, dtype=bool)
    prior = np.zeros(size)
    weak = 1.0 / prior_sd**2
    played = st.games > 0
    if joined:
        free[:players] = played
        prior[:players] = np.where(played, weak, 0.0)
    else:
        in_big = np.bincount(st.group)[st.group] > 1
        free[:players] = in_big
        _, first_of_group = np.unique(st.group, return_index=True)
        free[first_of_group] = False  # the gauge: each group's first player at 0
    used = np.bincount(cells.kind, minlength=kinds) > 0
    free[players : players + kinds] = used
    prior[players : players + kinds] = np.where(used & ~tests.advantage_pinned, weak, 0.0)
    free[players + kinds :] = tests.draws
    prior[players + kinds :] = np.where(tests.draws & ~tests.margin_pinned, weak, 0.0)
    return Setup(cells, players, kinds, free, prior)


def _start(setup: Setup) -> Floats:
    n, k = setup.players, setup.kinds
    theta = np.zeros(setup.size)
    c = setup.cells
    draws = np.bincount(c.kind, c.counts[:, 1], k)
    total = np.maximum(np.bincount(c.kind, c.counts.sum(axis=1), k), 1.0)
    share = np.clip(draws / total, 0.01, 0.99)  # P(draw) = 2 F(d) - 1 at x = 0
    theta[n + k :] = np.where(setup.free[n + k :], 400 * np.log10((1 + share) / (1 - share)), 0.0)
    # Each rating starts at the Elo of its score against its average opponent (their average
    # rating taken as 0): a step or two nearer the maximum than 0 when opponents are mixed.
    first = c.counts[:, 0] + c.counts[:, 1] / 2
    games = c.counts.sum(axis=1)
    points = np.bincount(c.first, first, n) + np.bincount(c.second, games - first, n)
    played = np.bincount(c.first, games, n) + np.bincount(c.second, games, n)
    theta[:n] = np.clip(400 * np.log10((points + 0.5) / (played - points + 0.5)), -800, 800)
    return theta


def estimate(
    all_cells: Cells, fitted: Cells, st: Structure, tests: KindTests, joined: bool,
    prior_sd: float, players: int, kinds: int,
) -> Estimate:  # fmt: skip
    setup = main_setup(fitted, players, kinds, st, tests, joined, prior_sd)
    solution = fit(setup, _start(setup))
    theta = solution.theta
    n, k = players, kinds
    position = np.full(n, -1, dtype=np.int64)
    free_players = np.flatnonzero(setup.free[:n])
    position[free_players] = np.arange(len(free_players))
    size = int(setup.free.sum())
    played = st.games > 0
    ratings = np.where(played, theta[:n], np.nan)
    converged = solution.converged
    if joined:
        laplace = played & (st.place == FINITE)
        ratings = ratings - np.nanmean(ratings) if played.any() else ratings
        weights = [_mean_weights(played, position, size)]
    else:
        ratings, placed_ok = _centre_and_place(all_cells, st, ratings, theta, n, k, prior_sd)
        converged = converged and placed_ok
        laplace = (st.place == FINITE) & played & (np.bincount(st.group)[st.group] > 1)
        weights = [
            _mean_weights((st.component == c) & laplace, position, size)
            for c in range(st.components)
        ]
    return Estimate(
        ratings, theta[n : n + k], theta[n + k :], position, weights, solution.factor, setup,
        theta, laplace, converged,
    )  # fmt: skip


def _mean_weights(members: Mask, position: Ints, size: int) -> Floats:
    """The mean of `members`' ratings as weights over the free parameters (a player held at 0
    adds nothing to it but its share)."""
    weights = np.zeros(size)
    count = int(members.sum())
    if count:
        at = position[members]
        np.add.at(weights, at[at >= 0], 1.0 / count)
    return weights


def _centre_and_place(
    cells: Cells, st: Structure, ratings: Floats, theta: Floats, n: int, k: int, prior_sd: float
) -> tuple[Floats, bool]:
    """Cores averaged to 0, the other groups' players around their group's mean, then the
    groups placed (see the module's docstring)."""
    groups = int(st.group.max()) + 1 if n else 0
    size = np.bincount(st.group, minlength=groups).astype(np.float64)
    values = np.nan_to_num(ratings)
    mean = np.bincount(st.group, values, groups) / np.maximum(size, 1)
    within = values - mean[st.group]
    is_core = np.zeros(groups, dtype=bool)
    is_core[st.core[st.core >= 0]] = True
    across = st.group[cells.first] != st.group[cells.second]
    if not across.any():
        return np.where(st.games > 0, within, np.nan), True
    part = cells.where(across)
    free = np.zeros(groups + 2 * k, dtype=bool)
    touched = np.zeros(groups, dtype=bool)
    touched[st.group[part.first]] = touched[st.group[part.second]] = True
    free[:groups] = touched & ~is_core
    prior = np.zeros(groups + 2 * k)
    prior[:groups] = np.where(free[:groups], size / prior_sd**2, 0.0)
    group_cells = Cells(st.group[part.first], st.group[part.second], part.kind, part.counts)
    offset = within[part.first] - within[part.second]
    setup = Setup(group_cells, groups, k, free, prior, offset)
    start = np.concatenate([np.zeros(groups), theta[n:]])
    placed = fit(setup, start)
    shift = placed.theta[:groups]
    return np.where(st.games > 0, within + shift[st.group], np.nan), placed.converged
