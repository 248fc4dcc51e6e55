"""The ratings as the commands print them, on the cases that make a naive fit lie: two groups of
bots that never met, an unbeaten bot, a bot with one game, a bot swept by everyone it met, and
a match swept by one side. What `referee tournament results`, `referee league show` and
`referee match` print (their JSON, and their tables' words) agrees with an independent fit
(tests/tournament/test_rating_cases.py: the likelihood written out and maximised by scipy, its
Hessian by finite differences, the one-sided bounds by root finding), and each case is named."""

from __future__ import annotations

import hashlib
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from scipy.optimize import brentq
from scipy.stats import chi2, norm

from scripts.league_generator import random_games, write_games
from tests.commandline import referee
from tests.scriptbots import script_bot
from tests.tournament.test_rating_cases import CELLS, CORE1, CORE2, independent, loglik, variance

# Loses every game on its first move (orange waits for blue's move first).
ILLEGAL = """
if hear() == "orange":
    hear()
say("this is not a move")
hear()
"""


def _tournament(folder: Path) -> None:
    """A finished tournament whose games are exactly CELLS."""
    games, endings = [], {}
    for (first, second), (wins, draws, losses) in CELLS.items():
        for ending in ["blue"] * wins + ["draw"] * draws + ["orange"] * losses:
            games.append((first, second, len(games) + 1))
            endings[len(games)] = ending
    names = sorted({name for pair in CELLS for name in pair})
    write_games(
        folder, 0, names, games, lambda g, blue, orange: endings[g],
        lambda name: hashlib.sha256(name.encode()).hexdigest(), random_games(1), random.Random(1),
    )  # fmt: skip


def _json(*args: str, cwd: Path) -> Any:
    done = referee(*args, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _text(*args: str, cwd: Path) -> str:
    done = referee(*args, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())  # the table's cells, whatever the terminal's width


@pytest.mark.slow
def test_every_printed_figure_is_the_independent_fits_and_each_case_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the tables' words whole, as on a wide terminal
    _tournament(tmp_path / "runs" / "t01")
    r, a, d, cov = independent()
    z = norm.ppf(0.975)
    drop = chi2.ppf(0.95, 1) / 2

    def own(name: str, x: float) -> float:
        return loglik(r | {name: x}, a, d, {p: c for p, c in CELLS.items() if name in p})

    unbeaten_low = brentq(lambda x: own("U", x) + drop, -2000, 3000)
    winless_high = brentq(lambda x: own("R", x) + drop, -3000, 2000)
    expected: dict[str, tuple[float | None, float | None]] = {
        "U": (unbeaten_low, None),
        "R": (None, winless_high),
    }
    component = {name: k for k, core in enumerate((CORE1, CORE2)) for name in core}
    for core in (CORE1, CORE2):
        mean = {p: 1 / len(core) for p in core}
        for name in core:
            sd = math.sqrt(variance(cov, {p: -w for p, w in mean.items()} | {name: 1 - mean[name]}))
            expected[name] = (r[name] - z * sd, r[name] + z * sd)
    flags = {"U": ["unbeaten"], "R": ["winless"], "N": ["provisional"]}

    # `referee tournament results --format json`: the figures unrounded.
    report = _json("tournament", "results", "runs/t01", "--format", "json", cwd=tmp_path)
    table = report["ratings"]
    assert [sorted(c["core"]) for c in table["components"]] == [sorted(CORE1), sorted(CORE2)]
    assert table["kinds"][0]["advantage"] == pytest.approx(a, abs=1e-3)
    assert table["kinds"][0]["draw_margin"] == pytest.approx(d, abs=1e-3)
    rows = {row["name"]: row for row in table["rows"]}
    for name, (low, high) in expected.items():
        row = rows[name]
        if name in r:
            assert row["rating"] == pytest.approx(r[name], abs=1e-3), name
            assert row["component"] == component[name], name
        assert (row["low"], row["high"]) == (
            None if low is None else pytest.approx(low, abs=1e-2),
            None if high is None else pytest.approx(high, abs=1e-2),
        ), name
        assert row["flags"] == flags.get(name, []), name
    assert rows["N"]["rank"] is None and rows["A"]["rank"] is not None
    words = _text("tournament", "results", "runs/t01", cwd=tmp_path)
    for named in ("unbeaten", "winless", "provisional", "component 2", "Not ranked"):
        assert named in words, named

    # `referee league show --format json` of a league of that tournament: the same figures, to
    # the tenth of an Elo it prints.
    assert referee("league", "new", "league", cwd=tmp_path).returncode == 0
    added = referee("league", "add", "league", "runs/t01", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    rated = referee("league", "rate", "league", cwd=tmp_path)
    assert rated.returncode == 0, rated.stderr
    shown = _json("league", "show", "league", "--all-versions", "--format", "json", cwd=tmp_path)
    league = {row["name"]: row for row in shown}
    assert set(league) == set(rows)
    for name, (low, high) in expected.items():
        row = league[name]
        assert row["rating"] == pytest.approx(rows[name]["rating"], abs=0.051), name
        if name in r:
            assert row["component"] == component[name], name
        assert (row["low"], row["high"]) == (
            None if low is None else pytest.approx(low, abs=0.06),
            None if high is None else pytest.approx(high, abs=0.06),
        ), name
        assert row["flags"] == flags.get(name, []), name
        assert row["rank"] == rows[name]["rank"], name
    words = _text("league", "show", "league", "--all-versions", cwd=tmp_path)
    for named in ("unbeaten", "winless", "provisional", "component 2"):
        assert named in words, named
    assert f">= {round(unbeaten_low):+d}" in words and f"<= {round(winless_high):+d}" in words

    # `referee match` swept by one side: a one-sided bound, where the likelihood of n won
    # games, p^n, falls by chi2/2 (no draw, no advantage to fit): p = exp(-chi2 / (2 n)).
    loser = script_bot(tmp_path, "loser", ILLEGAL)
    args = ["match", "tic-tac-toe", "-p1", "builtin:random", "-p2", loser, "--games", "6"]
    summary = _json(*args, "--dir", "m", "--isolation", "basic+root", "-q", "--json", cwd=tmp_path)
    rating = summary["rating"]
    p = math.exp(-drop / 6)
    assert (rating["side"], rating["high"], rating["games"]) == ("lower", None, 6)
    assert rating["low"] == pytest.approx(400 * math.log10(p / (1 - p)), abs=1e-2)
    assert rating["flags"] == ["unbeaten"]
    words = _text(*args, "--dir", "m", "--isolation", "basic+root", "-q", cwd=tmp_path)
    assert "every game won" in words and "unbeaten" in words
