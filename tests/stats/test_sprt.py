"""The SPRT: Wald's bounds, the parameters as typed, the quadratic approximation, the Brownian
estimate of its length, and whole tests on simulated results."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from referee.stats.estimate import PAIR_SCORES
from referee.stats.match import match_stats, sprt_decision
from referee.stats.sprt import (
    Sprt,
    expected_samples,
    llr,
    llr_approximation,
    pair_variance,
    parse_sprt,
    typical_games,
)


def test_bounds_are_walds() -> None:
    sprt = Sprt(0, 20, 0.05, 0.05)
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439)
    assert sprt.upper == pytest.approx(2.944439)
    assert sprt.decide(3.0) == "H1" and sprt.decide(-3.0) == "H0" and sprt.decide(0.0) is None


def test_parameters_as_typed() -> None:
    assert parse_sprt(["elo1=200", "alpha=0.1", "beta=0.1"]) == Sprt(0, 200, 0.1, 0.1)
    assert parse_sprt(["model=normalized", "elo1=5"]) == Sprt(0, 5, model="normalized")
    assert parse_sprt([]) == Sprt()
    for bad, says in [
        (["elo2=3"], "expected elo0=, elo1="),
        (["elo0=20", "elo1=0"], "elo0 must be below elo1"),
        (["alpha=x"], "'x' is not a number"),
        (["elo1=inf"], "not a finite number"),
        (["model=bayesian"], "logistic or normalized"),
        (["alpha=0.6", "beta=0.5"], r"alpha \+ beta"),
    ]:
        with pytest.raises(ValueError, match=says):
            parse_sprt(bad)


def test_llr_approximation_by_hand() -> None:
    # Counts 5, 10, 20, 15, 10 (60 pairs): mean 33.75 / 60 = 0.5625; variance
    # 24.0625 / 60 - 0.5625^2 = 0.08463541; s0 = 0.5, s1 = score of 20 Elo = 0.528774;
    # LLR ~ 60 (s1 - s0)(2 mean - s0 - s1) / (2 var) = 0.981.
    s1 = 1 / (1 + 10 ** (-20 / 400))
    expected = 60 * (s1 - 0.5) * (2 * 0.5625 - 0.5 - s1) / (2 * 0.08463541)
    counts = [5, 10, 20, 15, 10]
    assert llr_approximation(counts, PAIR_SCORES, Sprt()) == pytest.approx(expected, rel=1e-4)
    # Near the hypotheses, the exact LLR is close to it.
    assert llr(counts, PAIR_SCORES, Sprt()) == pytest.approx(expected, rel=0.05)


def test_a_one_sided_sample_does_not_decide_at_once() -> None:
    """Two won pairs: the approximation would be huge; the exact LLR stays small (won pairs
    are as likely under 20 Elo as under 0, give or take)."""
    assert llr_approximation([0, 0, 0, 0, 2], PAIR_SCORES, Sprt()) > 10
    assert 0 < llr([0, 0, 0, 0, 2], PAIR_SCORES, Sprt()) < 0.2
    assert llr([0, 0, 0, 0, 0], PAIR_SCORES, Sprt()) == 0.0


def _walks(drift: float, variance: float, a: float, b: float, runs: int, seed: int) -> float:
    """The mean number of steps Gaussian random walks take to leave (a, b)."""
    rng = np.random.default_rng(seed)
    position = np.zeros(runs)
    steps = np.zeros(runs)
    running = np.ones(runs, dtype=bool)
    while running.any():
        position[running] += rng.normal(drift, math.sqrt(variance), running.sum())
        steps[running] += 1
        running &= (position > a) & (position < b)
    return float(steps.mean())


@pytest.mark.parametrize("elo", [0.0, 10.0, 20.0, 30.0])
def test_expected_length_matches_simulated_random_walks(elo: float) -> None:
    """The Brownian formula against random walks with the same drift and variance per pair;
    small steps, so the overshoot it neglects is small."""
    sprt = Sprt(0, 20)
    variance = pair_variance(elo, 0.3)
    s0, s1, s = (1 / (1 + 10 ** (-e / 400)) for e in (0.0, 20.0, elo))
    drift = (s - (s0 + s1) / 2) * (s1 - s0) / variance
    spread = (s1 - s0) ** 2 / variance
    simulated = _walks(drift, spread, sprt.lower, sprt.upper, 2000, seed=int(elo))
    assert expected_samples(sprt, elo, variance) == pytest.approx(simulated, rel=0.08)


def test_typical_games_grow_as_the_bounds_narrow() -> None:
    wide, usual, narrow = (typical_games(Sprt(0, e)) for e in (200, 20, 5))
    assert wide < 100 < usual < narrow
    # Without draws, pairs of independent games: about 1,600 games for elo1 = 20.
    assert 1500 < usual < 1700
    assert typical_games(Sprt(0, 20, model="normalized")) > 0


def _simulate(p_win: float, draw: float, seed: int, sprt: Sprt, most: int) -> dict[int, float]:
    """Simulated games (no processes), game by game, stopping once the SPRT decides."""
    rng = random.Random(seed)
    scores: dict[int, float] = {}
    for number in range(1, most + 1):
        r = rng.random()
        scores[number] = 0.5 if r < draw else (1.0 if r < draw + (1 - draw) * p_win else 0.0)
        if number % 2 == 0 and sprt_decision(scores, sprt, "pentanomial") is not None:
            break
    return scores


def test_a_clearly_stronger_player_is_found_stronger() -> None:
    sprt = Sprt(0, 20, 0.05, 0.05)
    for seed in range(3):
        # Expected score 0.65 (about +108 Elo): H1 quickly.
        scores = _simulate(0.7, 0.3, seed, sprt, 20000)
        stats = match_stats(scores, sprt)
        assert stats.decision == "H1" and stats.llr is not None and stats.llr >= sprt.upper
        assert len(scores) < 2000


def test_equal_players_are_not_found_stronger() -> None:
    sprt = Sprt(0, 20, 0.05, 0.05)
    for seed in range(3):
        scores = _simulate(0.5, 0.3, seed, sprt, 40000)
        assert match_stats(scores, sprt).decision == "H0"


def test_the_trinomial_model_decides_from_single_games() -> None:
    sprt = Sprt(0, 200, 0.1, 0.1)
    scores = dict.fromkeys(range(1, 40), 1.0)  # 39 games won: one pair still open
    assert match_stats(scores, sprt, "trinomial").estimate.samples == 39
    assert match_stats(scores, sprt, "pentanomial").estimate.samples == 19
    assert sprt_decision(scores, sprt, "trinomial") == "H1"
