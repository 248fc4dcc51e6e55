"""The rating model (`referee.stats.rating`) checked against computations made another way:
closed forms, a direct dense maximisation of the per-game likelihood written here from the
model's formulas, a numerical Hessian, the bootstrap, and coverage of known strengths; and its
honest output: components, unbeaten and winless players, provisional rows, anchors, ranks, LOS."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from referee.stats import rating_fit
from referee.stats.rating import Anchor, RatingInput, RatingOptions, RatingReport, rate

CHI2 = float(stats.chi2.ppf(0.95, df=1))
Z = float(stats.norm.ppf(0.975))


def p_first(x: float, d: float) -> float:
    return 1 / (1 + 10 ** (-(x - d) / 400))


def simulate(
    seed: int, players: int, games: int, kinds: dict[str, tuple[float, float]], spread: float = 200
) -> tuple[RatingInput, dict[str, float], list[tuple[str, str, str, str]]]:
    """Games between random pairs of players of known ratings; kinds map to (advantage, margin)."""
    rng = np.random.default_rng(seed)
    names = [f"p{i}" for i in range(players)]
    truth = dict(zip(names, rng.normal(0, spread, players), strict=True))
    data, rows = RatingInput(), []
    kind_names = list(kinds)
    for _ in range(games):
        f, s = rng.choice(players, 2, replace=False)
        kind = kind_names[int(rng.integers(len(kind_names)))]
        advantage, margin = kinds[kind]
        x = truth[names[f]] - truth[names[s]] + advantage
        first, second = p_first(x, margin), p_first(-x, margin)
        draw = max(0.0, 1 - first - second)
        p = np.array([first, draw, second]) / (first + draw + second)
        outcome = str(rng.choice(["first", "draw", "second"], p=p))
        data.add(names[f], names[s], kind, outcome)  # type: ignore[arg-type]
        rows.append((names[f], names[s], kind, outcome))
    return data, truth, rows


def independent_fit(
    rows: list[tuple[str, str, str, str]], players: list[str], kinds: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Maximum likelihood by BFGS over every game, from the model's formulas: ratings (mean 0),
    advantages, margins, and the covariance of the ratings (the inverse of a finite-difference
    Hessian, first player held at 0, then centred)."""
    n, k = len(players), len(kinds)
    index = {p: i for i, p in enumerate(players)}
    kind_index = {name: j for j, name in enumerate(kinds)}
    f = np.array([index[r[0]] for r in rows])
    s = np.array([index[r[1]] for r in rows])
    kind = np.array([kind_index[r[2]] for r in rows])
    outcome = np.array([["first", "draw", "second"].index(r[3]) for r in rows])

    def unpack(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return np.concatenate([[0.0], v[: n - 1]]), v[n - 1 : n - 1 + k], np.exp(v[n - 1 + k :])

    def nll(v: np.ndarray) -> float:
        r, a, d = unpack(v)
        x = r[f] - r[s] + a[kind]
        with np.errstate(over="ignore"):  # far from the maximum: a probability of 0
            one = 1 / (1 + 10 ** (-(x - d[kind]) / 400))
            two = 1 / (1 + 10 ** (-(-x - d[kind]) / 400))
        p = np.choose(outcome, [one, 1 - one - two, two])
        return float(-np.log(np.maximum(p, 1e-300)).sum())

    start = np.concatenate([np.zeros(n - 1 + k), np.full(k, math.log(100.0))])
    found = optimize.minimize(nll, start, method="BFGS", options={"gtol": 1e-8, "maxiter": 5000})
    r, a, d = unpack(found.x)
    # The Hessian in (ratings, advantages, margins), margins in Elo, by central differences.
    point = np.concatenate([found.x[: n - 1 + k], d])

    def nll_elo(w: np.ndarray) -> float:
        return nll(np.concatenate([w[: n - 1 + k], np.log(w[n - 1 + k :])]))

    h = 1e-2
    size = len(point)
    hessian = np.empty((size, size))
    for i in range(size):
        for j in range(size):
            e_i, e_j = np.eye(size)[i] * h, np.eye(size)[j] * h
            hessian[i, j] = (
                nll_elo(point + e_i + e_j) - nll_elo(point + e_i - e_j)
                - nll_elo(point - e_i + e_j) + nll_elo(point - e_i - e_j)
            ) / (4 * h * h)  # fmt: skip
    cov_free = np.linalg.inv(hessian)[: n - 1, : n - 1]
    cov = np.zeros((n, n))
    cov[1:, 1:] = cov_free
    centre = np.eye(n) - 1 / n
    return r - r.mean(), a, d, centre @ cov @ centre.T


def ratings_of(report: RatingReport, names: list[str]) -> np.ndarray:
    by_name = report.by_name()
    return np.array([by_name[name].rating for name in names], dtype=float)


def test_two_players_without_draws_reduce_to_the_log_of_wins_over_losses() -> None:
    data = RatingInput()
    data.add("a", "b", "g", "first", 30)
    data.add("a", "b", "g", "second", 12)
    data.add("b", "a", "g", "first", 12)
    data.add("b", "a", "g", "second", 30)
    report = rate(data)
    a, b = ratings_of(report, ["a", "b"])
    assert a - b == pytest.approx(400 * math.log10(60 / 24), abs=1e-6)
    assert a + b == pytest.approx(0.0, abs=1e-9)
    assert report.kinds[0].advantage == pytest.approx(0.0, abs=1e-6)
    assert report.kinds[0].draw_margin == 0.0
    assert report.components[0].method == "maximum likelihood"


def test_the_fit_and_its_laplace_covariance_agree_with_an_independent_maximisation() -> None:
    kinds = {"alak": (60.0, 120.0), "lielow": (-30.0, 40.0)}
    data, _, rows = simulate(seed=5, players=5, games=900, kinds=kinds)
    report = rate(data, RatingOptions(min_games=1, los_matrix=True))
    players = [f"p{i}" for i in range(5)]
    r, a, d, cov = independent_fit(rows, players, list(kinds))
    np.testing.assert_allclose(ratings_of(report, players), r, atol=0.02)
    np.testing.assert_allclose([k.advantage for k in report.kinds], a, atol=0.02)
    np.testing.assert_allclose([k.draw_margin for k in report.kinds], d, atol=0.02)
    by_name = report.by_name()
    for i, name in enumerate(players):
        interval = by_name[name].interval
        assert interval.method == "laplace" and interval.side == "two-sided"
        assert interval.low is not None and interval.high is not None
        half = (interval.high - interval.low) / 2
        assert half == pytest.approx(Z * math.sqrt(cov[i, i]), rel=2e-3)
    matrix = report.los_matrix
    assert matrix is not None
    i, j = matrix.names.index("p0"), matrix.names.index("p1")
    spread = math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    expected = stats.norm.cdf((r[0] - r[1]) / spread)
    assert matrix.values[i][j] == pytest.approx(expected, abs=1e-3)


def test_the_sparse_path_gives_the_dense_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Conjugate-gradient steps, the sparse Hessian and the column-by-column selected inverse
    (what 3,000+ players use) against exact steps and a dense inverse, on the same games."""
    data, _, _ = simulate(seed=7, players=40, games=3000, kinds={"g": (25.0, 80.0)})
    options = RatingOptions(min_games=1, los_matrix=True)
    dense = rate(data, options)
    monkeypatch.setattr(rating_fit, "DENSE_LIMIT", 10)
    monkeypatch.setattr(rating_fit, "_DIRECT", 5)
    sparse = rate(data, options)
    names = [row.name for row in dense.rows]
    np.testing.assert_allclose(ratings_of(sparse, names), ratings_of(dense, names), atol=1e-6)
    for one, other in zip(dense.rows, sparse.rows, strict=True):
        assert one.interval.low == pytest.approx(other.interval.low, abs=1e-6)
        assert one.los_next == pytest.approx(other.los_next, abs=1e-7)
    assert dense.los_matrix is not None and sparse.los_matrix is not None
    np.testing.assert_allclose(
        np.array(dense.los_matrix.values, dtype=float),
        np.array(sparse.los_matrix.values, dtype=float),
        atol=1e-7,
    )


def test_laplace_and_bootstrap_widths_agree_on_a_synthetic_league() -> None:
    data, _, _ = simulate(seed=11, players=12, games=4000, kinds={"g": (40.0, 100.0)})
    laplace = rate(data)
    boot = rate(data, RatingOptions(bootstrap=200, seed=3))
    assert boot.intervals == "bootstrap"
    ratios = []
    for row in laplace.rows:
        other = boot.by_name()[row.name]
        assert other.interval.method == "bootstrap"
        assert row.interval.low is not None and row.interval.high is not None
        assert other.interval.low is not None and other.interval.high is not None
        ratios.append(
            (other.interval.high - other.interval.low) / (row.interval.high - row.interval.low)
        )
    assert 0.85 < float(np.median(ratios)) < 1.15
    assert min(ratios) > 0.7 and max(ratios) < 1.4


def test_intervals_cover_the_true_strengths() -> None:
    """Over simulated leagues the 95% intervals hold the true (centred) ratings about 95% of
    the time."""
    inside = total = 0
    for seed in range(12):
        data, truth, _ = simulate(seed=100 + seed, players=10, games=1500, kinds={"g": (30, 90)})
        report = rate(data)
        mean = float(np.mean(list(truth.values())))
        for row in report.rows:
            assert row.interval.low is not None and row.interval.high is not None
            inside += row.interval.low <= truth[row.name] - mean <= row.interval.high
            total += 1
    assert 0.88 <= inside / total <= 0.995


def test_components_that_never_met_are_rated_and_ranked_apart() -> None:
    data = RatingInput()
    for first, second, wins in (("a", "b", 7), ("b", "c", 5), ("a", "c", 9)):
        data.add(first, second, "g", "first", wins)
        data.add(first, second, "g", "second", 4)
        data.add(second, first, "g", "first", 6)
        data.add(second, first, "g", "draw", 2)
    data.add("x", "y", "g", "first", 6)
    data.add("x", "y", "g", "second", 5)
    data.add("y", "x", "g", "second", 9)
    data.add("y", "x", "g", "first", 1)
    data.add_player("ghost")
    report = rate(data, RatingOptions(min_games=1))
    by_name = report.by_name()
    assert len(report.components) == 3
    assert {by_name[n].component for n in "abc"} == {0}
    assert {by_name[n].component for n in "xy"} == {1}
    assert sum(by_name[n].rating or 0 for n in "abc") == pytest.approx(0, abs=1e-9)
    assert sum(by_name[n].rating or 0 for n in "xy") == pytest.approx(0, abs=1e-9)
    assert sorted(by_name[n].rank for n in "abc") == [1, 2, 3]
    assert sorted(by_name[n].rank for n in "xy") == [1, 2]
    last_of_first = [row for row in report.rows if row.component == 0][-1]
    assert last_of_first.los_next is None  # the next row is in another component
    ghost = by_name["ghost"]
    assert ghost.flags == {"alone"} and ghost.rating is None and ghost.rank is None
    assert any("never met" in note for note in report.notes)
    joined = rate(data, RatingOptions(min_games=1, join_components=True))
    assert joined.joined
    assert sorted(row.rank for row in joined.rows if row.rank is not None) == [1, 2, 3, 4, 5]
    assert any("joined on one scale only by the prior" in note for note in joined.notes)


def league_with_newcomers() -> RatingInput:
    data, _, _ = simulate(seed=3, players=6, games=600, kinds={"g": (30.0, 0.0)})
    data.add("new", "p0", "g", "first", 3)  # three wins as the first mover
    data.add("bad", "p1", "g", "second", 2)  # two losses as the first mover
    data.add("p2", "bad", "g", "first", 2)  # and two as the second
    return data


def test_unbeaten_and_winless_players_get_one_sided_bounds_from_the_likelihood() -> None:
    report = rate(league_with_newcomers(), RatingOptions(min_games=1))
    by_name = report.by_name()
    new, bad = by_name["new"], by_name["bad"]
    assert "unbeaten" in new.flags and "winless" in bad.flags
    assert new.interval.side == "lower" and new.interval.high is None
    assert bad.interval.side == "upper" and bad.interval.low is None
    assert new.interval.method == bad.interval.method == "likelihood"
    # new's three games against p0, p0 and the kind held: 3 ln F(x - a_less) falls by chi2 / 2
    # where F = exp(-chi2 / 6); the kind has no draws, so its margin is 0.
    kind = report.kinds[0]
    assert kind.draw_margin == 0.0
    target = math.exp(-CHI2 / 6)
    x = 400 * math.log10(target / (1 - target))
    p0 = by_name["p0"].rating
    assert p0 is not None
    assert new.interval.low == pytest.approx(p0 + x - kind.advantage, abs=1e-4)
    assert new.rating is not None and new.rating > new.interval.low
    method = report.components[0].method
    assert "core" in method and "infinite" in method
    assert set(report.components[0].core) == {f"p{i}" for i in range(6)}
    # The core is rated by maximum likelihood on its own games: newcomers do not move it.
    alone = rate(simulate(seed=3, players=6, games=600, kinds={"g": (30.0, 0.0)})[0])
    for name in (f"p{i}" for i in range(6)):
        assert by_name[name].rating == pytest.approx(alone.by_name()[name].rating, abs=1e-6)


def test_draws_keep_an_unbeaten_player_finite() -> None:
    """A bot that never lost but drew is not infinitely strong: a draw binds both ways."""
    data, _, _ = simulate(seed=4, players=5, games=500, kinds={"g": (0.0, 150.0)})
    data.add("perfect", "p0", "g", "first", 5)
    data.add("p1", "perfect", "g", "draw", 3)
    data.add("perfect", "p1", "g", "first", 2)
    row = rate(data).by_name()["perfect"]
    assert not row.flags & {"unbeaten", "winless", "unbounded"}
    assert row.interval.side == "two-sided" and row.interval.method == "laplace"


def test_two_players_one_sweep_are_both_flagged_with_no_core() -> None:
    data = RatingInput()
    data.add("a", "b", "g", "first", 3)
    data.add("b", "a", "g", "second", 2)
    report = rate(data, RatingOptions(min_games=1))
    a, b = report.by_name()["a"], report.by_name()["b"]
    assert "unbeaten" in a.flags and "winless" in b.flags
    assert a.rating is not None and b.rating is not None and a.rating > 0 > b.rating
    assert a.rating + b.rating == pytest.approx(0, abs=1e-6)
    assert report.components[0].core == ()


def test_provisional_rows_are_unranked_and_hidden_on_request() -> None:
    data = league_with_newcomers()
    report = rate(data)  # min_games 10: new (3 games) and bad (4) are provisional
    by_name = report.by_name()
    assert "provisional" in by_name["new"].flags and by_name["new"].rank is None
    ranks = [row.rank for row in report.rows if row.rank is not None]
    assert ranks == list(range(1, 7))
    ranked_only = rate(data, RatingOptions(show="ranked"))
    assert {row.name for row in ranked_only.hidden} == {"new", "bad"}
    assert all(row.rank is not None for row in ranked_only.rows)
    assert ranked_only.rows[-1].los_next is None


def test_ranks_are_dense_and_equal_ratings_share_one() -> None:
    """a, b and c score evenly against each other, so their ratings are equal (d's games with
    a move d alone); d is below them: ranks 1, 1, 1, 2, no gap after the tie."""
    data = RatingInput()
    for one, two in (("a", "b"), ("a", "c"), ("b", "c")):
        data.add(one, two, "g", "first", 5)
        data.add(one, two, "g", "second", 5)
        data.add(two, one, "g", "first", 5)
        data.add(two, one, "g", "second", 5)
    data.add("d", "a", "g", "first", 3)
    data.add("d", "a", "g", "second", 7)
    data.add("a", "d", "g", "first", 7)
    data.add("a", "d", "g", "second", 3)
    report = rate(data)
    assert {row.name: row.rank for row in report.rows} == {"a": 1, "b": 1, "c": 1, "d": 2}
    assert report.rows[-1].name == "d"


def test_the_los_matrix_is_antisymmetric_and_holds_the_next_rows_los() -> None:
    data, _, _ = simulate(seed=9, players=7, games=700, kinds={"g": (30.0, 80.0)})
    report = rate(data, RatingOptions(los_matrix=True))
    matrix = report.los_matrix
    assert matrix is not None
    values = np.array(matrix.values, dtype=float)
    off = ~np.eye(len(values), dtype=bool)
    np.testing.assert_allclose((values + values.T)[off], 1.0, atol=1e-12)
    for position, row in enumerate(report.rows[:-1]):
        assert row.los_next == pytest.approx(values[position, position + 1], abs=1e-12)


def test_an_anchor_fixes_a_player_or_the_mean() -> None:
    data, _, _ = simulate(seed=2, players=5, games=500, kinds={"g": (30.0, 80.0)})
    free = rate(data).by_name()
    anchored = rate(data, RatingOptions(anchor=Anchor(1500.0, "p2"))).by_name()
    assert anchored["p2"].rating == pytest.approx(1500.0)
    assert anchored["p2"].interval.low == pytest.approx(1500.0)
    for name in ("p0", "p1", "p3", "p4"):
        difference = (anchored[name].rating or 0) - (free[name].rating or 0)
        assert difference == pytest.approx(1500.0 - (free["p2"].rating or 0), abs=1e-6)
    mean = rate(data, RatingOptions(anchor=Anchor(1000.0))).by_name()
    assert np.mean([mean[f"p{i}"].rating for i in range(5)]) == pytest.approx(1000.0)
    with pytest.raises(ValueError, match="not one of the players"):
        rate(data, RatingOptions(anchor=Anchor(0.0, "nobody")))


def test_kinds_without_draws_have_no_margin_and_all_draw_kinds_need_the_prior() -> None:
    data, _, _ = simulate(seed=6, players=4, games=400, kinds={"decisive": (50.0, 0.0)})
    for first, second in (("p0", "p1"), ("p1", "p0"), ("p2", "p3")):
        data.add(first, second, "drawn", "draw", 4)
    report = rate(data)
    kinds = {kind.name: kind for kind in report.kinds}
    assert kinds["decisive"].draw_margin == 0.0 and not kinds["decisive"].margin_from_prior
    assert kinds["drawn"].margin_from_prior
    assert any("drawn: the draw margin is kept finite by the prior" in n for n in report.notes)
    assert report.converged


def test_bad_rows_are_refused_by_name() -> None:
    data = RatingInput()
    with pytest.raises(ValueError, match="cannot play itself"):
        data.add("a", "a", "g", "first")
    with pytest.raises(ValueError, match="outcome"):
        data.add("a", "b", "g", "blue")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="negative"):
        data.add("a", "b", "g", "first", -1)


def test_no_games_at_all_is_an_empty_report_not_a_crash() -> None:
    assert rate(RatingInput()).rows == ()
    data = RatingInput()
    data.add_player("a")
    report = rate(data, RatingOptions(los_matrix=True, bootstrap=3))
    assert [(row.name, row.rating, row.flags) for row in report.rows] == [
        ("a", None, frozenset({"alone"}))
    ]


def test_rows_added_at_once_rate_as_rows_added_one_by_one() -> None:
    one_by_one, at_once = RatingInput(), RatingInput()
    table = []
    for first, second, outcome, count in ((0, 1, 0, 4), (1, 0, 2, 3), (1, 2, 1, 2), (2, 0, 0, 5)):
        names = ("a", "b", "c")
        word = ("first", "draw", "second")[outcome]
        one_by_one.add(names[first], names[second], "g", word, count)  # type: ignore[arg-type]
        table.append((first, second, 0, outcome, count))
    table.append((2, 1, 0, 2, 3))
    one_by_one.add("c", "b", "g", "second", 3)
    at_once.add_indexed(["a", "b", "c"], ["g"], np.array(table))
    assert rate(one_by_one) == rate(at_once)
    with pytest.raises(ValueError, match="itself"):
        at_once.add_indexed(["a"], ["g"], np.array([(0, 0, 0, 0, 1)]))


def test_an_advantage_no_pair_pins_is_kept_finite_by_the_prior() -> None:
    """Every game of `solo` was won by its first mover, and no pair played it in both colours:
    the likelihood would push its advantage to infinity."""
    data, _, _ = simulate(seed=8, players=4, games=300, kinds={"g": (20.0, 60.0)})
    data.add("p0", "p1", "solo", "first", 3)
    data.add("p2", "p3", "solo", "first", 2)
    kinds = {kind.name: kind for kind in rate(data).kinds}
    assert kinds["solo"].advantage_from_prior and not kinds["g"].advantage_from_prior
    assert 0 < kinds["solo"].advantage < 4000


def ladder_beyond_the_core() -> RatingInput:
    """A core (cat, dan beat each other); hal beats the core and loses to ann, who beat only hal;
    low loses to the core and beats eve, who lost every game."""
    data = RatingInput()
    data.add("cat", "dan", "g", "first", 3)
    data.add("dan", "cat", "g", "first", 3)
    data.add("cat", "dan", "g", "second", 2)
    data.add("dan", "cat", "g", "second", 2)
    data.add("hal", "cat", "g", "first", 2)
    data.add("dan", "hal", "g", "second", 2)
    data.add("ann", "hal", "g", "first", 2)
    data.add("hal", "ann", "g", "second", 2)
    data.add("cat", "low", "g", "first", 2)
    data.add("low", "dan", "g", "second", 2)
    data.add("low", "eve", "g", "first", 2)
    data.add("eve", "low", "g", "second", 2)
    return data


def test_a_player_beyond_the_core_with_a_loss_is_not_called_unbeaten() -> None:
    report = rate(ladder_beyond_the_core(), RatingOptions(min_games=1))
    flags = {row.name: row.flags for row in report.rows}
    assert flags["ann"] == {"unbeaten"} and flags["eve"] == {"winless"}
    # hal lost to ann: above the core, with a lower bound only, but not unbeaten.
    assert flags["hal"] == {"above"} and flags["low"] == {"below"}
    hal, low = report.by_name()["hal"], report.by_name()["low"]
    assert hal.interval.side == "lower" and low.interval.side == "upper"
    # ann never played the core: nothing bounds her from the games with finite ratings.
    ann = report.by_name()["ann"].interval
    assert ann.side == "lower" and ann.low is None and ann.high is None
    assert not flags["cat"] and not flags["dan"]
    note = next(n for n in report.notes if "infinite" in n)
    assert note.startswith("4 players have") and "1 unbeaten, 1 above, 1 below, 1 winless" in note


def core_with_outsiders(kim: bool) -> RatingInput:
    """cat and dan beat each other; ann beats them and hal; hal beats them; eve loses to them;
    with `kim`, a player who beat only eve (placed by the prior alone)."""
    data = ladder_beyond_the_core()
    data.add("ann", "cat", "g", "first", 2)
    data.add("dan", "ann", "g", "second", 1)
    data.add("cat", "eve", "g", "first", 3)
    data.add("eve", "dan", "g", "second", 2)
    if kim:
        data.add("kim", "eve", "g", "first", 5)
    return data


def bound_from_the_core(report: RatingReport, games: list[tuple[str, str, int]], who: str) -> float:
    """Where the log-likelihood of `who`'s games against the core (first mover, second mover,
    count; `who` won them all), as a function of its rating, falls by chi2 / 2 below its
    supremum 0 (the kind has no draws, so no margin)."""
    by_name = report.by_name()
    a = report.kinds[0].advantage

    def log_l(r: float) -> float:
        total = 0.0
        for first, second, count in games:
            rf = r if first == who else by_name[first].rating
            rs = r if second == who else by_name[second].rating
            assert rf is not None and rs is not None
            x = rf - rs + a
            total += count * math.log(p_first(x if first == who else -x, 0.0))
        return total

    return float(optimize.brentq(lambda r: log_l(r) + CHI2 / 2, -5000, 5000))


def test_one_sided_bounds_come_from_the_games_against_the_core_only() -> None:
    """Neither the prior nor the placing of other infinite players moves a bound."""
    bounds = {}
    for prior_sd in (300.0, 5000.0):
        for kim in (False, True):
            report = rate(core_with_outsiders(kim), RatingOptions(min_games=1, prior_sd=prior_sd))
            rows = report.by_name()
            assert rows["hal"].flags == {"above"} and rows["eve"].flags == {"winless"}
            bounds[prior_sd, kim] = (
                rows["hal"].interval.low, rows["ann"].interval.low, rows["eve"].interval.high
            )  # fmt: skip
            # hal's 4 wins over the core (not its losses to ann, placed by the prior).
            hal = bound_from_the_core(report, [("hal", "cat", 2), ("dan", "hal", 2)], "hal")
            assert rows["hal"].interval.low == pytest.approx(hal, abs=1e-3)
            # ann's 3 wins over the core (not her wins over hal).
            ann = bound_from_the_core(report, [("ann", "cat", 2), ("dan", "ann", 1)], "ann")
            assert rows["ann"].interval.low == pytest.approx(ann, abs=1e-3)
    first = bounds[300.0, False]
    for found in bounds.values():
        assert found == pytest.approx(first, abs=1e-3)


def test_joined_components_have_no_los_between_them() -> None:
    """Joined, the prior puts components on one scale that compares nothing: no LOS across."""
    data = RatingInput()
    for first, second in (("a", "b"), ("b", "a"), ("p", "q"), ("q", "p")):
        data.add(first, second, "g", "first", 3)
        data.add(first, second, "g", "second", 2)
    data.add("a", "b", "g", "first", 2)  # a a little stronger than b
    report = rate(data, RatingOptions(join_components=True, los_matrix=True, min_games=1))
    assert report.los_matrix is not None
    names = list(report.los_matrix.names)
    component = {row.name: row.component for row in report.rows}
    for i, one in enumerate(names):
        for j, other in enumerate(names):
            value = report.los_matrix.values[i][j]
            if i != j and component[one] == component[other]:
                assert value is not None
            else:
                assert value is None, (one, other)
    for row, below in zip(report.rows, report.rows[1:], strict=False):
        if row.component != below.component:
            assert row.los_next is None
