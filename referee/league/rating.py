"""Rating a league: every rated game of its index rated by the project's one rating model
(`referee.stats.rating`, docs/ratings.md), with Laplace intervals (a bootstrap's on request),
the likelihood of superiority, the flags (unbeaten, winless, provisional...), and, if asked,
the rating over time; the results go back into the index in one transaction.

Each version of a bot is a player of the model; each game (Alak, Lielow...) has its own
first-move advantage and draw margin. Bots of two games never meet: each game's versions are a
component of their own, rated and ranked apart. The same games rated by `tournament results`
or `referee match` give the same numbers: they build the same `RatingInput`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from referee.league.config import FitSettings, LeagueError
from referee.league.index import HistoryRow, KindRow, LeagueIndex, RatedGame, RatingRow
from referee.league.queries import version_names
from referee.records import utc_now
from referee.stats.rating import Anchor, RatingInput, RatingOptions, RatingReport, rate
from referee.stats.rating_input import Outcome
from referee.stats.rating_report import LosMatrix

_OUTCOME: dict[str, Outcome] = {"blue": "first", "draw": "draw", "orange": "second"}


@dataclass(frozen=True)
class RatedLeague:
    """What a rating run found, for the command to print."""

    games: int
    players: int
    report: RatingReport
    resamples: int
    steps: int


def league_input(rows: list[RatedGame], label: Callable[[int], str] = str) -> RatingInput:
    """The rated games as the model's input: blue moves first; each version a player (named by
    `label` of its id), each game a kind."""
    data = RatingInput()
    for row in rows:
        data.add(label(row.blue), label(row.orange), row.game, _OUTCOME[row.result])
    return data


def period_of(history: str, finished_at: str, source: str) -> str:
    """The period of the rating history a game belongs to."""
    if history == "source":
        return source
    when = datetime.fromisoformat(finished_at)
    if history == "week":
        year, week, _ = when.isocalendar()
        return f"{year}-W{week:02d}"
    return f"{when.year}-{when.month:02d}"


def rate_league(
    index: LeagueIndex,
    settings: FitSettings,
    progress: Callable[[str, int, int], None],
    options: RatingOptions | None = None,
) -> RatedLeague:
    """Rate every rated game of the index. `options` (the command line's: anchor, minimum
    games, joined components) take the level, prior, bootstrap and seed from `settings`."""
    rows = index.rated_games()
    options = options or RatingOptions()
    if options.anchor is not None and options.anchor.player is not None:
        version = anchor_version(index, options.anchor.player)
        options = replace(options, anchor=replace(options.anchor, player=str(version)))
    chosen = replace(
        options,
        level=settings.level,
        prior_sd=settings.prior_sd,
        bootstrap=settings.bootstrap,
        seed=settings.seed,
        los_matrix=False,
        show="all",
    )
    progress("fit", 0, 1)
    report = rate(league_input(rows), chosen)
    progress("fit", 1, 1)
    history = _history(rows, settings, chosen, progress) if settings.history != "none" else []
    meta = {
        "rated_at": utc_now().isoformat(),
        "rated_games": str(len(rows)),
        "fit": _describe(report, chosen),
        "joined_components": str(int(report.joined)),  # for `league show --los-matrix`
    }
    index.save_ratings(_rating_rows(report), _kind_rows(report), history, meta)
    steps = len({h.step for h in history})
    players = sum(1 for r in report.rows if r.games)
    return RatedLeague(len(rows), players, report, chosen.bootstrap, steps)


def anchor_version(index: LeagueIndex, name: str) -> int:
    """The version `--anchor NAME=ELO` names as the league's tables do: a bot's name (its
    latest version) or `NAME vN` (its N-th); refused naming the choices."""
    names = version_names(index)
    found = names.get(name, [])
    if len(found) == 1:
        return found[0]
    choices = ", ".join(sorted(names)) or "none: no games read yet"
    if found:
        raise LeagueError(f"the anchor {name!r} names bots of {len(found)} games ({choices})")
    raise LeagueError(f"the anchor {name!r} is not a bot of the league; its bots: {choices}")


def los_matrix(index: LeagueIndex, settings: FitSettings, versions: list[int]) -> LosMatrix:
    """The likelihood of superiority of every pair of `versions` (ids; the matrix names them
    so, in the order the fit shows them), from the Laplace covariance of the fit that gave the
    stored ratings: the index keeps the ratings, not their covariance (for thousands of
    versions, millions of numbers), so the same games are fitted again, as `league rate` did."""
    rows = index.rated_games()
    meta = index.meta()
    if meta.get("rated_games") != str(len(rows)):
        raise LeagueError("games were read since the league was rated: run `referee league rate`")
    options = RatingOptions(
        level=settings.level,
        prior_sd=settings.prior_sd,
        join_components=meta.get("joined_components") == "1",
        los_matrix=True,
        los_players=frozenset(str(v) for v in versions),
    )
    found = rate(league_input(rows), options).los_matrix
    assert found is not None  # asked for
    return found


def _rate_step(data: RatingInput, options: RatingOptions) -> RatingReport:
    """A step of the history. Before the anchored version has a finite rating (no games yet,
    or only wins), nothing can hold it: that step's cores average the anchor's Elo instead."""
    try:
        return rate(data, options)
    except ValueError:
        if options.anchor is None or options.anchor.player is None:
            raise
        return rate(data, replace(options, anchor=Anchor(options.anchor.elo)))


def _describe(report: RatingReport, options: RatingOptions) -> str:
    how = "maximum likelihood (BayesElo's model; docs/ratings.md)"
    if not report.converged:
        how += " (the optimiser did not converge: ratings are approximate)"
    if options.bootstrap:
        how += f"; {options.level:.0%} intervals from {options.bootstrap} bootstrap resamples"
    else:
        how += f"; {options.level:.0%} intervals from the Laplace approximation"
    return how


def _rating_rows(report: RatingReport) -> list[RatingRow]:
    return [
        RatingRow(
            version=int(row.name),
            rank=row.rank,
            rating=row.rating,
            low=row.interval.low,
            high=row.interval.high,
            games=row.games,
            points=row.points,
            los_next=row.los_next,
            side=row.interval.side,
            flags=" ".join(sorted(row.flags)),
            component=row.component,
        )
        for row in (*report.rows, *report.hidden)
        if row.rating is not None
    ]


def _kind_rows(report: RatingReport) -> list[KindRow]:
    return [KindRow(k.name, k.advantage, k.draw_margin, k.games) for k in report.kinds]


def _history(
    rows: list[RatedGame],
    settings: FitSettings,
    options: RatingOptions,
    progress: Callable[[str, int, int], None],
) -> list[HistoryRow]:
    """Each version's rating after each period, from the games up to its end, with its
    interval then (Laplace's, even where the ratings' are a bootstrap's: one fit a step)."""
    periods = [period_of(settings.history, r.finished_at, r.source) for r in rows]
    order = list(dict.fromkeys(periods))  # sources in the config's order
    if settings.history != "source":
        order.sort()  # weeks and months by time
    rank = {period: step for step, period in enumerate(order)}
    quick = replace(options, bootstrap=0)
    out: list[HistoryRow] = []
    for step, period in enumerate(order):
        upto = [r for r, p in zip(rows, periods, strict=True) if rank[p] <= step]
        report = _rate_step(league_input(upto), quick)
        out += [
            HistoryRow(
                int(row.name),
                step + 1,
                period,
                row.rating,
                row.games,
                row.interval.low,
                row.interval.high,
            )
            for row in (*report.rows, *report.hidden)
            if row.rating is not None and row.games
        ]
        progress("history", step + 1, len(order))
    return out
