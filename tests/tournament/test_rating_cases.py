"""The rating tables on the cases that make a naive fit lie (docs/ratings.md): two groups of
players that never met, an unbeaten bot, a version with one game, and a bot swept by everyone.
Each case is named in the output, and every figure equals an independent fit: the model's
likelihood written out here and maximised by scipy.optimize, its Hessian by finite differences,
and the one-sided bounds by root finding."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest
from rich.console import Console
from scipy.optimize import brentq, minimize, minimize_scalar
from scipy.stats import chi2, norm

from protocols.base import Reason, Side
from referee.tournament.rating import rate_results
from referee.tournament.standings import GameResult
from referee.views.rating import rating_view

CORE1 = ["A", "B", "C", "D", "N"]  # N: one game, a draw with C
CORE2 = ["P", "Q"]
FITTED = CORE1 + CORE2
PLAYERS = [*FITTED, "U", "R"]  # U beat everyone it met; R lost every game
PRIOR_SD = 1000.0

# (first, second): (first mover's wins, draws, second mover's wins)
CELLS: dict[tuple[str, str], tuple[int, int, int]] = {
    ("A", "B"): (3, 1, 1), ("B", "A"): (1, 1, 2), ("A", "C"): (2, 1, 1), ("C", "A"): (2, 0, 2),
    ("A", "D"): (3, 0, 1), ("D", "A"): (1, 1, 2), ("B", "C"): (2, 1, 2), ("C", "B"): (2, 1, 1),
    ("B", "D"): (2, 1, 1), ("D", "B"): (1, 2, 1), ("C", "D"): (3, 1, 0), ("D", "C"): (1, 1, 2),
    ("N", "C"): (0, 1, 0),
    ("U", "A"): (6, 0, 0), ("B", "U"): (0, 0, 6),
    ("P", "Q"): (4, 1, 1), ("Q", "P"): (2, 2, 2),
    ("R", "P"): (0, 0, 6), ("Q", "R"): (5, 0, 0),
}  # fmt: skip


def results() -> list[GameResult]:
    out = []
    for (first, second), (wins, draws, losses) in CELLS.items():
        out += [GameResult(first, second, Side.BLUE, Reason.GAME_ENDING)] * wins
        out += [GameResult(first, second, None, Reason.GAME_ENDING)] * draws
        out += [GameResult(first, second, Side.ORANGE, Reason.GAME_ENDING)] * losses
    return out


def f(z: np.ndarray | float) -> np.ndarray:
    return 1 / (1 + 10 ** (-np.asarray(z) / 400))


def loglik(r: dict[str, float], a: float, d: float, cells: dict) -> float:  # type: ignore[type-arg]
    total = 0.0
    for (first, second), (wins, draws, losses) in cells.items():
        x = r[first] - r[second] + a
        p1, p2 = f(x - d), f(-x - d)
        total += wins * math.log(p1) + losses * math.log(p2)
        total += draws * math.log(1 - p1 - p2) if draws else 0.0
    return total


INSIDE = {pair: c for pair, c in CELLS.items() if "U" not in pair and "R" not in pair}


def minus(theta: np.ndarray) -> float:
    r = dict(zip(FITTED, theta[:-2], strict=True))
    return -loglik(r, theta[-2], theta[-1], INSIDE)


def _unit(u: np.ndarray) -> np.ndarray:
    theta = 100 * np.asarray(u, dtype=float)
    theta[-1] = abs(theta[-1])
    return theta


def independent() -> tuple[dict[str, float], float, float, np.ndarray]:
    # In units of 100 Elo, the margin as its absolute value (the likelihood is even in it).
    found = minimize(lambda u: minus(_unit(u)), np.full(9, 0.5),
                     method="BFGS", options={"gtol": 1e-11, "maxiter": 10000})  # fmt: skip
    theta = _unit(found.x)
    for core in (CORE1, CORE2):  # each component's core averages 0
        at = [FITTED.index(p) for p in core]
        theta[at] -= theta[at].mean()
    h, n = 0.5, len(theta)
    hess = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            e_i, e_j = np.eye(n)[i] * h, np.eye(n)[j] * h
            hess[i, j] = (
                minus(theta + e_i + e_j) - minus(theta + e_i - e_j)
                - minus(theta - e_i + e_j) + minus(theta - e_i - e_j)
            ) / (4 * h * h)  # fmt: skip
    r = dict(zip(FITTED, theta[:-2], strict=True))
    return r, float(theta[-2]), float(theta[-1]), np.linalg.pinv(hess, rcond=1e-8, hermitian=True)


def variance(cov: np.ndarray, weights: dict[str, float]) -> float:
    c = np.zeros(len(cov))
    for name, w in weights.items():
        c[FITTED.index(name)] += w
    return float(c @ cov @ c)


def test_each_case_is_named_and_every_figure_is_the_independent_fits() -> None:
    table = rate_results(PLAYERS, results(), "alak")
    rows = table.by_name()
    r, a, d, cov = independent()
    z = norm.ppf(0.975)
    assert table.kinds[0].advantage == pytest.approx(a, abs=1e-3)
    assert table.kinds[0].draw_margin == pytest.approx(d, abs=1e-3)
    # Two components, each rated on its own with its core averaging 0.
    assert [sorted(c.core) for c in table.components] == [sorted(CORE1), sorted(CORE2)]
    for core in (CORE1, CORE2):
        mean = {p: 1 / len(core) for p in core}
        for name in core:
            row = rows[name]
            assert row.rating == pytest.approx(r[name], abs=1e-3), name
            sd = math.sqrt(variance(cov, {p: -w for p, w in mean.items()} | {name: 1 - mean[name]}))
            assert (row.low, row.high) == (
                pytest.approx(r[name] - z * sd, abs=1e-2),
                pytest.approx(r[name] + z * sd, abs=1e-2),
            ), name
            assert row.side == "two-sided" and row.method == "laplace"
    # The one-game version: rated, provisional, not ranked.
    assert rows["N"].flags == ["provisional"] and rows["N"].rank is None
    # U and R: one-sided bounds where the log-likelihood of their games falls by chi2/2.
    drop = chi2.ppf(0.95, 1) / 2
    mine = {"U": {p: c for p, c in CELLS.items() if "U" in p},
            "R": {p: c for p, c in CELLS.items() if "R" in p}}  # fmt: skip

    def own(name: str, x: float) -> float:
        return loglik(r | {name: x}, a, d, mine[name])

    lower = brentq(lambda x: own("U", x) + drop, -2000, 3000)
    upper = brentq(lambda x: own("R", x) + drop, -3000, 2000)
    assert (rows["U"].flags, rows["U"].side, rows["U"].high) == (["unbeaten"], "lower", None)
    assert rows["U"].low == pytest.approx(lower, abs=1e-2)
    assert (rows["R"].flags, rows["R"].side, rows["R"].low) == (["winless"], "upper", None)
    assert rows["R"].high == pytest.approx(upper, abs=1e-2)
    # The number shown for them: the mode with the weak prior on their rating.
    for name in ("U", "R"):
        mode = minimize_scalar(lambda x, n=name: -own(n, x) + x * x / (2 * PRIOR_SD**2),
                               bounds=(-5000, 5000), method="bounded",
                               options={"xatol": 1e-6})  # fmt: skip
        assert rows[name].rating == pytest.approx(mode.x, abs=1e-2), name
    # Dense ranks by rating inside each component; the LOS against the next row shown.
    for component in (0, 1):
        ranked = [row for row in table.rows if row.component == component and row.rank]
        assert [row.rank for row in ranked] == list(range(1, len(ranked) + 1))
        assert [row.rating for row in ranked] == sorted(
            [row.rating for row in ranked], reverse=True
        )
    shown = table.rows
    for this, below in pairwise(shown):
        if this.name in FITTED and below.name in FITTED and this.component == below.component:
            sd = math.sqrt(variance(cov, {this.name: 1.0, below.name: -1.0}))
            expected = norm.cdf((r[this.name] - r[below.name]) / sd)
            assert this.los_next == pytest.approx(expected, abs=1e-4), this.name
        elif "U" in (this.name, below.name) or "R" in (this.name, below.name):
            assert this.los_next is None
    # Every case named in the terminal's tables.
    console = Console(record=True, width=160)
    console.print(rating_view(table))
    text = console.export_text()
    for words in ("unbeaten", "winless", "provisional", "component 2", "Not ranked",
                  f">= {round(lower):+d}", f"<= {round(upper):+d}"):  # fmt: skip
        assert words in text, words
