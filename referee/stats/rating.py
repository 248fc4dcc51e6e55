"""The rating model: one answer for tournaments, matches, leagues and the arena.

`rate(data, options)` takes results counted by (first mover, second mover, kind, outcome)
(`RatingInput`) and returns a `RatingReport`. The model is BayesElo's Bradley-Terry with a draw
margin and a first-move advantage per kind (`rating_terms`'s docstring has the formulas), fitted by
maximum likelihood; docs/ratings.md says what each number means. The steps:

1. the components and groups of the played graph, and which kinds the games pin
   (`rating_graph`);
2. the fit and the placing of groups with infinite ratings (`rating_estimate`, `rating_fit`);
3. intervals: Laplace's from the Hessian (`rating_laplace`) or the bootstrap's on request
   (`rating_bootstrap`), one-sided from the likelihood where the rating is infinite
   (`rating_bounds`);
4. flags, ranks and the LOS, here.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

import numpy as np

from referee.stats.elo import normal_quantile, phi
from referee.stats.rating_bootstrap import interval as bootstrap_interval
from referee.stats.rating_bootstrap import samples as bootstrap_samples
from referee.stats.rating_bounds import group_bound
from referee.stats.rating_estimate import Estimate, estimate
from referee.stats.rating_graph import (
    ABOVE,
    BELOW,
    FINITE,
    UNBOUNDED,
    KindTests,
    Structure,
    kind_tests,
    record,
    structure,
)
from referee.stats.rating_input import Cells, RatingInput
from referee.stats.rating_laplace import selected, times
from referee.stats.rating_report import (
    NO_INTERVAL,
    Anchor,
    ComponentInfo,
    Flag,
    Interval,
    KindRating,
    LosMatrix,
    PlayerRating,
    RatingOptions,
    RatingReport,
)
from referee.stats.rating_terms import Floats

__all__ = ["Anchor", "RatingInput", "RatingOptions", "RatingReport", "rate"]


_TIE = 1e-6  # Elo
# The flags of an infinite maximum likelihood rating, in the order the notes name them.
_INFINITE: tuple[Flag, ...] = ("unbeaten", "above", "below", "winless", "unbounded")


def _players(count: int) -> str:
    """The notes' subject: "1 player has", "2 players have"."""
    return "1 player has" if count == 1 else f"{count} players have"


@dataclass
class _Rows:
    """Per player, as the report is built."""

    rating: Floats
    low: Floats  # nan: no bound
    high: Floats
    side: list[str]
    method: list[str]


def rate(data: RatingInput, options: RatingOptions | None = None) -> RatingReport:
    options = options or RatingOptions()
    if not 0 < options.level < 1:
        raise ValueError(f"the level of the intervals must be between 0 and 1 ({options.level})")
    names, kind_names = data.players, data.kinds
    n, k = len(names), max(1, len(kind_names))
    cells = data.cells()
    st = structure(cells, n)
    joined = options.join_components
    fitted = cells if joined else cells.where(st.internal(cells))
    tests = kind_tests(fitted, n, k)
    found = estimate(cells, fitted, st, tests, joined, options.prior_sd, n, k)
    anchor_shift, anchor_at = _anchor(options.anchor, names, st, found, joined)
    ratings = found.ratings + anchor_shift
    z = normal_quantile(0.5 + options.level / 2)
    rows = _Rows(ratings, np.full(n, np.nan), np.full(n, np.nan), ["none"] * n, ["none"] * n)
    variance = _laplace_variance(found, st, anchor_at, joined)
    use = np.flatnonzero(found.laplace)
    half = z * np.sqrt(np.maximum(variance[use], 0.0))
    rows.low[use], rows.high[use] = ratings[use] - half, ratings[use] + half
    for i in use:
        rows.side[i], rows.method[i] = "two-sided", "laplace"
    if options.bootstrap > 0 and len(fitted):
        _bootstrap(found, st, anchor_at, joined, options, rows)
    _likelihood_bounds(cells, st, found, rows, z * z)
    flags = _flags(st, cells, options.min_games)
    points = _points(cells, n)
    order, ranks = _order(names, ratings, st, flags, joined)
    shown = [i for i in order if options.show == "all" or ranks[i] is not None]
    showing = set(shown)
    hidden = [i for i in order if i not in showing]
    within = shown
    if options.los_players is not None:
        within = [i for i in shown if names[i] in options.los_players]
    los_next, matrix = _los(found, st, ratings, shown, options.los_matrix, names, within)
    report_rows = [
        PlayerRating(
            name=names[i],
            rating=None if np.isnan(ratings[i]) else float(ratings[i]),
            interval=_interval(rows, i),
            games=int(st.games[i]),
            points=float(points[i]),
            flags=flags[i],
            component=int(st.component[i]),
            rank=ranks[i],
            los_next=los_next.get(i),
        )
        for i in range(n)
    ]
    return RatingReport(
        rows=tuple(report_rows[i] for i in shown),
        hidden=tuple(report_rows[i] for i in hidden),
        kinds=_kinds(kind_names, found, tests, fitted, k),
        components=_components(names, st, cells, joined, options.prior_sd),
        joined=joined,
        level=options.level,
        anchor=options.anchor,
        intervals="bootstrap" if options.bootstrap > 0 else "laplace",
        los_matrix=matrix,
        converged=found.converged,
        notes=_notes(st, flags, joined, options, tests, kind_names),
    )


def _anchor(
    anchor: Anchor | None, names: list[str], st: Structure, found: Estimate, joined: bool
) -> tuple[Floats, int | None]:
    """The shift of every rating, and the anchored player's index (its component's reference)."""
    n = len(names)
    if anchor is None:
        return np.zeros(n), None
    if anchor.player is None:
        return np.full(n, anchor.elo), None
    if anchor.player not in names:
        raise ValueError(f"the anchor {anchor.player!r} is not one of the players")
    at = names.index(anchor.player)
    if not found.laplace[at]:
        raise ValueError(
            f"the anchor {anchor.player!r} has no finite rating to hold (no games, or its "
            "maximum likelihood rating is infinite)"
        )
    shift = anchor.elo - float(found.ratings[at])
    if joined:
        return np.full(n, shift), at
    return np.where(st.component == st.component[at], shift, anchor.elo), at


def _reference(found: Estimate, st: Structure, anchor_at: int | None, joined: bool) -> list[Floats]:
    """Per component (joined: one), the weights of the reference the ratings are shown against."""
    weights = list(found.weights)
    if anchor_at is not None:
        unit = np.zeros(len(weights[0]))
        if found.position[anchor_at] >= 0:
            unit[found.position[anchor_at]] = 1.0
        weights[0 if joined else int(st.component[anchor_at])] = unit
    return weights


def _laplace_variance(
    found: Estimate, st: Structure, anchor_at: int | None, joined: bool
) -> Floats:
    """Var(r_i - reference) for each player with a Laplace interval."""
    n = len(found.ratings)
    variance = np.full(n, np.nan)
    if not found.laplace.any():
        return variance
    diagonal = selected(found.factor, np.zeros((0, 2), dtype=np.int64), None).diagonal
    for c, w in enumerate(_reference(found, st, anchor_at, joined)):
        members = found.laplace & (True if joined else st.component == c)
        if not members.any():
            continue
        sw = times(found.factor, w)
        at = found.position[members]
        own = np.where(at >= 0, diagonal[at], 0.0) - 2 * np.where(at >= 0, sw[at], 0.0)
        variance[members] = own + float(w @ sw)
    return variance


def _bootstrap(
    found: Estimate,
    st: Structure,
    anchor_at: int | None,
    joined: bool,
    options: RatingOptions,
    rows: _Rows,
) -> None:
    drawn = bootstrap_samples(
        found.setup, found.theta, options.bootstrap, options.seed, options.prior_sd
    )
    use = found.laplace
    for c in range(1 if joined else st.components):
        members = use & (True if joined else st.component == c)
        if not members.any():
            continue
        if anchor_at is not None and (joined or st.component[anchor_at] == c):
            reference = drawn[:, anchor_at]
        else:
            reference = drawn[:, members].mean(axis=1)
        centred = drawn[:, members] - reference[:, None]
        low, high = bootstrap_interval(centred, options.level)
        # The same reference as the full fit's ratings: the resampled differences move them.
        base = found.ratings[members] - (
            found.ratings[anchor_at] if anchor_at is not None and (
                joined or st.component[anchor_at] == c) else found.ratings[members].mean()
        )  # fmt: skip
        offset = rows.rating[members] - base
        rows.low[members], rows.high[members] = low + offset, high + offset
        for i in np.flatnonzero(members):
            rows.method[i] = "bootstrap"


def _likelihood_bounds(
    cells: Cells, st: Structure, found: Estimate, rows: _Rows, chi2: float
) -> None:
    flagged = np.flatnonzero(((st.place == ABOVE) | (st.place == BELOW)) & (st.games > 0))
    if not len(flagged):
        return
    values = np.nan_to_num(found.ratings)
    # A group's bound reads its games against the players whose ratings are finite (its
    # component's core) only: another infinite group sits where the prior put it, and games
    # against it would carry the prior into the bound (that group could be at +-inf, where
    # those games say nothing). A component without a core has no finite rating: there the
    # bound is relative to the others' placing, from all the group's games.
    touched = np.zeros(len(st.games), dtype=bool)
    touched[flagged] = True
    finite = st.place == FINITE
    cored = st.core[st.component] >= 0
    near = cells.where(touched[cells.first] | touched[cells.second])
    for group in np.unique(st.group[flagged]):
        members = st.group == group
        first = int(np.flatnonzero(members)[0])
        above = bool(st.place[first] == ABOVE)
        part = near
        if cored[first]:
            part = near.where(finite[near.first] | finite[near.second])
        t = group_bound(part, values, found.advantage, found.margin, members, above, chi2)
        for i in np.flatnonzero(members):
            rows.method[i] = "likelihood"
            rows.side[i] = "lower" if above else "upper"
            if t is not None:
                (rows.low if above else rows.high)[i] = rows.rating[i] + t


def _interval(rows: _Rows, i: int) -> Interval:
    if rows.method[i] == "none":
        return NO_INTERVAL
    low, high = rows.low[i], rows.high[i]
    side: Literal["two-sided", "lower", "upper", "none"] = "two-sided"
    if rows.side[i] == "lower":
        side = "lower"
    elif rows.side[i] == "upper":
        side = "upper"
    method: Literal["laplace", "bootstrap", "likelihood"] = "laplace"
    if rows.method[i] in ("bootstrap", "likelihood"):
        method = "bootstrap" if rows.method[i] == "bootstrap" else "likelihood"
    return Interval(
        None if np.isnan(low) else float(low), None if np.isnan(high) else float(high), side, method
    )


def _flags(st: Structure, cells: Cells, min_games: int) -> list[frozenset[Flag]]:
    # The words stay true of the games: above the core but with a loss (to a group further
    # above) is "above", not "unbeaten"; below it with a win, "below", not "winless".
    won, lost = record(cells, len(st.games))
    found: list[frozenset[Flag]] = []
    for i in range(len(st.games)):
        these: set[Flag] = set()
        if st.games[i] == 0:
            these.add("alone")
        elif st.games[i] < min_games:
            these.add("provisional")
        place = st.place[i]
        if st.games[i] and place == ABOVE:
            these.add("above" if lost[i] else "unbeaten")
        elif st.games[i] and place == BELOW:
            these.add("below" if won[i] else "winless")
        elif st.games[i] and place == UNBOUNDED:
            these.add("unbounded")
        found.append(frozenset(these))
    return found


def _points(cells: Cells, n: int) -> Floats:
    first = cells.counts[:, 0] + cells.counts[:, 1] / 2
    second = cells.counts[:, 2] + cells.counts[:, 1] / 2
    both = np.bincount(cells.first, first, n) + np.bincount(cells.second, second, n)
    return np.asarray(both, dtype=np.float64)


def _order(
    names: list[str], ratings: Floats, st: Structure, flags: list[frozenset[Flag]], joined: bool
) -> tuple[list[int], list[int | None]]:
    """The rows in order (by component unless joined; ranked rows first, best first) and each
    player's dense rank among the ranked rows of its component."""
    unranked = {"alone", "provisional", "unbounded"}
    ranks: list[int | None] = [None] * len(names)
    order: list[int] = []
    units = [np.arange(len(names))] if joined else [
        np.flatnonzero(st.component == c) for c in range(st.components)
    ]  # fmt: skip
    for members in units:

        def key(i: int) -> tuple[float, str]:
            return (-ratings[i] if not np.isnan(ratings[i]) else np.inf, names[i])

        ranked = sorted((int(i) for i in members if not flags[i] & unranked), key=key)
        rest = sorted((int(i) for i in members if flags[i] & unranked), key=key)
        rank, previous = 0, None
        for i in ranked:
            # Equal ratings share a rank: equal to a millionth of an Elo (what a fit can tell).
            if previous is None or abs(ratings[i] - previous) > _TIE:
                rank += 1
            ranks[i], previous = rank, ratings[i]
        order += ranked + rest
    return order, ranks


def _los(
    found: Estimate,
    st: Structure,
    ratings: Floats,
    shown: list[int],
    full: bool,
    names: list[str],
    within: list[int],
) -> tuple[dict[int, float], LosMatrix | None]:
    """P(r_i > r_j) = Phi((r_i - r_j) / sd(r_i - r_j)) from the Laplace covariance, for each row
    and the next shown one, and on request for every pair of the rows `within` (shown rows);
    only between players with finite ratings of one component. Joined or not: the prior's
    common scale says nothing of who is stronger across components."""

    def comparable(i: int, j: int) -> bool:
        same = st.component[i] == st.component[j]
        return bool(same and found.laplace[i] and found.laplace[j])

    pairs = [(i, j) for i, j in pairwise(shown) if comparable(i, j)]
    block_players = [i for i in within if found.laplace[i]] if full else []
    positions = found.position
    wanted = np.array(
        [(positions[i], positions[j]) for i, j in pairs if positions[i] >= 0 and positions[j] >= 0],
        dtype=np.int64,
    ).reshape(-1, 2)
    block_at = np.array([positions[i] for i in block_players if positions[i] >= 0], dtype=np.int64)
    chosen = selected(found.factor, wanted, block_at if full else None)
    covariance = {
        (int(a), int(b)): float(v) for (a, b), v in zip(wanted, chosen.pairs, strict=True)
    }
    if chosen.block is not None:
        for x, a in enumerate(block_at):
            for y, b in enumerate(block_at):
                covariance[(int(a), int(b))] = float(chosen.block[x, y])

    def cov(i: int, j: int) -> float:
        a, b = int(positions[i]), int(positions[j])
        if a < 0 or b < 0:
            return 0.0
        return (
            covariance.get((a, b), covariance.get((b, a), 0.0))
            if a != b
            else float(chosen.diagonal[a])
        )

    def los(i: int, j: int) -> float | None:
        spread = cov(i, i) + cov(j, j) - 2 * cov(i, j)
        if spread <= 0:
            return None
        return phi((ratings[i] - ratings[j]) / np.sqrt(spread))

    next_los = {i: v for i, j in pairs if (v := los(i, j)) is not None}
    matrix = None
    if full:
        values = tuple(
            tuple(los(i, j) if i != j and comparable(i, j) else None for j in within)
            for i in within
        )
        matrix = LosMatrix(tuple(names[i] for i in within), values)
    return next_los, matrix


def _kinds(
    kind_names: list[str], found: Estimate, tests: KindTests, fitted: Cells, k: int
) -> tuple[KindRating, ...]:
    games = np.bincount(fitted.kind, fitted.counts.sum(axis=1), k)
    return tuple(
        KindRating(
            name=name,
            advantage=float(found.advantage[j]),
            draw_margin=float(found.margin[j]),
            games=int(games[j]),
            advantage_from_prior=bool(games[j] > 0 and not tests.advantage_pinned[j]),
            margin_from_prior=bool(tests.draws[j] and not tests.margin_pinned[j]),
        )
        for j, name in enumerate(kind_names)
    )


def _components(
    names: list[str], st: Structure, cells: Cells, joined: bool, prior_sd: float
) -> tuple[ComponentInfo, ...]:
    per_cell = cells.counts.sum(axis=1)
    games = np.bincount(st.component[cells.first], per_cell, st.components)
    found = []
    for c in range(st.components):
        members = np.flatnonzero(st.component == c)
        core = members[st.group[members] == st.core[c]] if st.core[c] >= 0 else members[:0]
        outside = len(members) - len(core)
        if games[c] == 0:
            method = "no games"
        elif joined:
            method = f"maximum a posteriori, normal prior (sd {prior_sd:g} Elo) on every rating"
        elif outside == 0:
            method = "maximum likelihood"
        else:
            have = (
                "has an infinite maximum likelihood rating and is"
                if outside == 1
                else ("have infinite maximum likelihood ratings and are")
            )
            method = (
                f"maximum likelihood for the {len(core)} players of its core; the other "
                f"{outside} {have} placed by a normal prior (sd {prior_sd:g} Elo)"
            )
        found.append(
            ComponentInfo(
                c,
                tuple(names[i] for i in members),
                int(games[c]),
                tuple(names[i] for i in core),
                method,
            )
        )
    return tuple(found)


def _notes(
    st: Structure,
    flags: list[frozenset[Flag]],
    joined: bool,
    options: RatingOptions,
    tests: KindTests,
    kind_names: list[str],
) -> tuple[str, ...]:
    notes = []
    played = [c for c in range(st.components) if st.games[st.component == c].sum() > 0]
    if len(played) > 1:
        if joined:
            notes.append(
                f"{len(played)} components (players that never met another component's) "
                f"joined on one scale only by the prior (sd {options.prior_sd:g} Elo), which "
                "puts each component's average near 0: ratings of two components say nothing "
                "of who is stronger"
            )
        else:
            notes.append(
                f"{len(played)} components (players that never met another component's): each "
                "is rated on its own (its core averages 0) and ranked on its own; ratings of two "
                "components are not comparable"
            )
    flagged = int(((st.place != FINITE) & (st.games > 0)).sum())
    if flagged:
        # Each flag present, counted: the words the rows carry.
        counts = [
            f"{sum(word in f for f in flags)} {word}"
            for word in _INFINITE
            if any(word in f for f in flags)
        ]
        bounded = int(np.isin(st.place[st.games > 0], (ABOVE, BELOW)).sum())
        notes.append(
            f"{_players(flagged)} infinite maximum likelihood ratings ({', '.join(counts)}; "
            "docs/ratings.md)"
            + (": one-sided intervals, from the likelihood" if bounded else "")
            + (", none for unbounded" if bounded < flagged else "")
        )
        coreless = (st.core[st.component] < 0) & np.isin(st.place, (ABOVE, BELOW)) & (st.games > 0)
        if coreless.any():
            # No finite rating to bound against: `>= +1411` beside `<= +1589` is no overlap.
            notes.append(
                "where a component has no core (nobody beat anybody both ways), each one-sided "
                "bound holds with the other players where they are shown, not wherever they are"
            )
    for j, name in enumerate(kind_names):
        if tests.draws[j] and not tests.margin_pinned[j]:
            notes.append(f"{name}: the draw margin is kept finite by the prior")
    return tuple(notes)
