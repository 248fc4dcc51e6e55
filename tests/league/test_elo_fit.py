"""The league's Elo fit checked against computations made another way: closed forms where the
model has one, and a direct maximisation of the per-game likelihood written independently
(scripts/league_check.py, which also checks a whole rated league)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from referee.stats.elo_fit import (
    DRAW,
    FIRST_WINS,
    SECOND_WINS,
    Games,
    _Posterior,
    fit,
    outcome_probabilities,
    tally,
)
from referee.stats.elo_intervals import bootstrap, likelihood_of_superiority
from scripts.league_check import independent_fit


def games_of(counts: dict[tuple[int, int, int, int], int], players: int, kinds: int) -> Games:
    rows = [key for key, n in counts.items() for _ in range(n)]
    return Games.of(rows, players, kinds)


def test_two_players_without_draws_match_the_closed_form() -> None:
    """With two players, both colours and no draws, the maximum likelihood solves
    logit P(first wins) = S(+-diff + advantage) exactly: two equations, two unknowns."""
    a_first = {(0, 1, 0, FIRST_WINS): 30, (0, 1, 0, SECOND_WINS): 10}
    b_first = {(1, 0, 0, FIRST_WINS): 15, (1, 0, 0, SECOND_WINS): 25}
    found = fit(games_of(a_first | b_first, 2, 1), prior_sd=None)
    per_elo = math.log(10) / 400
    diff = (math.log(30 / 10) - math.log(15 / 25)) / 2 / per_elo
    advantage = (math.log(30 / 10) + math.log(15 / 25)) / 2 / per_elo
    assert found.converged
    assert found.ratings[0] - found.ratings[1] == pytest.approx(diff, abs=1e-3)
    assert found.advantage[0] == pytest.approx(advantage, abs=1e-3)


def test_four_hundred_points_is_ten_to_one() -> None:
    counts = {(0, 1, 0, FIRST_WINS): 50, (0, 1, 0, SECOND_WINS): 5}
    counts |= {(1, 0, 0, SECOND_WINS): 50, (1, 0, 0, FIRST_WINS): 5}
    found = fit(games_of(counts, 2, 1), prior_sd=None)
    assert found.ratings[0] - found.ratings[1] == pytest.approx(400.0, abs=1e-3)
    assert found.advantage[0] == pytest.approx(0.0, abs=1e-3)


def simulated(seed: int, players: int, kinds: int, games: int) -> tuple[Games, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.normal(0, 150, players)
    advantage, margin = np.array([60.0, -30.0])[:kinds], np.array([120.0, 40.0])[:kinds]
    rows = []
    for _ in range(games):
        first, second = rng.choice(players, 2, replace=False)
        kind = int(rng.integers(kinds))
        x = truth[first] - truth[second] + advantage[kind]
        p = outcome_probabilities(x, margin[kind])
        rows.append((int(first), int(second), kind, int(rng.choice(3, p=p))))
    return Games.of(rows, players, kinds), truth


def test_the_fit_agrees_with_an_independent_maximisation() -> None:
    games, _ = simulated(seed=5, players=4, kinds=2, games=400)
    found = fit(games, prior_sd=300.0)
    rows = list(zip(games.first, games.second, games.kind, games.outcome, strict=True))
    other = independent_fit(rows, games.players, games.kinds, 300.0)
    assert found.converged
    np.testing.assert_allclose(found.ratings, other[:4], atol=0.05)
    np.testing.assert_allclose(found.advantage, other[4:6], atol=0.05)
    np.testing.assert_allclose(found.draw_elo, np.abs(other[6:]), atol=0.05)


def test_the_derivatives_are_those_of_the_objective() -> None:
    games, _ = simulated(seed=2, players=5, kinds=2, games=300)
    posterior = _Posterior(tally(games), 5, 2, 400.0)
    theta = np.array([30.0, -20, 5, 0, 60, 40, -10, math.log(80), math.log(30)])

    def value(t: np.ndarray) -> float:
        return posterior.value_and_gradient(t)[0]

    def gradient(t: np.ndarray) -> np.ndarray:
        return posterior.value_and_gradient(t)[1].copy()

    np.testing.assert_allclose(gradient(theta), approx_fprime(theta, value, 1e-6), atol=1e-4)
    numeric = np.array(
        [approx_fprime(theta, lambda t, i=i: gradient(t)[i], 1e-6) for i in range(9)]
    )
    np.testing.assert_allclose(posterior.hessian(theta), numeric, atol=1e-4)


def test_many_games_recover_the_ratings_within_their_intervals() -> None:
    games, truth = simulated(seed=11, players=12, kinds=1, games=6000)
    found = fit(games)
    assert found.advantage[0] == pytest.approx(60, abs=15)
    assert found.draw_elo[0] == pytest.approx(120, abs=15)
    sample = bootstrap(games, found, 500.0, resamples=60, seed=3)
    low, high = sample.interval(0.95)
    centred = truth - truth.mean()
    assert np.mean((low <= centred) & (centred <= high)) >= 0.75
    assert np.all(low <= found.ratings) and np.all(found.ratings <= high)


def test_groups_that_never_met_each_average_zero() -> None:
    counts = {(0, 1, 0, FIRST_WINS): 20, (1, 0, 0, FIRST_WINS): 5, (0, 1, 0, DRAW): 3}
    counts |= {(2, 3, 1, FIRST_WINS): 4, (3, 2, 1, SECOND_WINS): 9, (2, 3, 1, SECOND_WINS): 1}
    found = fit(games_of(counts, 4, 2))
    assert found.ratings[0] + found.ratings[1] == pytest.approx(0, abs=1e-6)
    assert found.ratings[2] + found.ratings[3] == pytest.approx(0, abs=1e-6)
    assert found.ratings[2] > 100  # 13 wins in 14 games


def test_a_bot_that_lost_every_game_gets_a_finite_rating() -> None:
    counts = {(0, 1, 0, FIRST_WINS): 10, (1, 0, 0, SECOND_WINS): 10}
    found = fit(games_of(counts, 2, 1))
    assert found.converged and 0 < found.ratings[0] < 2000


def test_likelihood_of_superiority_is_the_normal_tail_of_the_differences() -> None:
    rng = np.random.default_rng(1)
    differences = rng.normal(0, 1, 4000)
    differences = (differences - differences.mean()) / differences.std(ddof=1) * 20 + 20
    assert likelihood_of_superiority(differences) == pytest.approx(0.841345, abs=1e-5)
    assert likelihood_of_superiority(-differences) == pytest.approx(1 - 0.841345, abs=1e-5)
    assert likelihood_of_superiority(np.zeros(5)) == 0.5
