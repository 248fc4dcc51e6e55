"""Rating a league: every rated game of its index in one fit (`referee.stats.elo_fit`),
intervals and the likelihood of superiority from a bootstrap (`referee.stats.elo_intervals`),
and, if asked, the rating over time; the results go back into the index in one transaction.

Each version of a bot is a player of the fit; each game (Alak, Lielow...) has its own
first-move advantage and draw margin. Ratings are comparable within a game only: bots of two
games never meet, and the prior makes each game's ratings average 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from referee.league.config import FitSettings
from referee.league.index import HistoryRow, KindRow, LeagueIndex, RatedGame, RatingRow
from referee.records import utc_now
from referee.stats.elo_fit import (
    DRAW,
    FIRST_WINS,
    SECOND_WINS,
    Fit,
    Floats,
    Games,
    Tally,
    fit,
    fit_tally,
    tally,
)
from referee.stats.elo_intervals import Bootstrap, bootstrap

_OUTCOME = {"blue": FIRST_WINS, "draw": DRAW, "orange": SECOND_WINS}


@dataclass(frozen=True)
class RatedLeague:
    """What a rating run found, for the command to print."""

    games: int
    players: int
    fit: Fit
    kinds: list[str]
    resamples: int
    steps: int


@dataclass(frozen=True)
class _Data:
    games: Games
    versions: list[int]  # player index -> version id
    kinds: list[str]
    periods: list[str]  # per game: its period of the history
    rows: list[RatedGame]


def _data(index: LeagueIndex, history: str) -> _Data:
    rows = index.rated_games()
    versions: dict[int, int] = {}
    kinds: dict[str, int] = {}
    table = []
    periods = []
    for row in rows:
        first = versions.setdefault(row.blue, len(versions))
        second = versions.setdefault(row.orange, len(versions))
        kind = kinds.setdefault(row.game, len(kinds))
        table.append((first, second, kind, _OUTCOME[row.result]))
        periods.append(period_of(history, row.finished_at, row.source))
    games = Games.of(table, len(versions), max(1, len(kinds)))
    return _Data(games, list(versions), list(kinds), periods, rows)


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
    index: LeagueIndex, settings: FitSettings, progress: Callable[[str, int, int], None]
) -> RatedLeague:
    data = _data(index, settings.history)
    games = data.games
    prior = settings.prior_sd
    progress("fit", 0, 1)
    full = fit(games, prior)
    progress("fit", 1, 1)
    sample: Bootstrap | None = None
    if settings.bootstrap and len(games):

        def step(done: int) -> None:
            progress("bootstrap", done, settings.bootstrap)

        sample = bootstrap(games, full, prior, settings.bootstrap, settings.seed, step)
    history = _history(data, settings, progress) if settings.history != "none" else []
    ratings = _rating_rows(data, full, sample, settings.level)
    kinds = _kind_rows(data, full)
    meta = {
        "rated_at": utc_now().isoformat(),
        "rated_games": str(len(games)),
        "fit": _describe(full, settings, sample),
    }
    index.save_ratings(ratings, kinds, history, meta)
    steps = len({h.step for h in history})
    resamples = 0 if sample is None else len(sample.samples)
    return RatedLeague(len(games), games.players, full, data.kinds, resamples, steps)


def _describe(full: Fit, settings: FitSettings, sample: Bootstrap | None) -> str:
    how = f"maximum a posteriori, normal prior sd {settings.prior_sd:g} Elo"
    if not full.converged:
        how += " (the optimiser did not converge: ratings are approximate)"
    if sample is not None:
        how += f"; {settings.level:.0%} intervals from {len(sample.samples)} bootstrap resamples"
    return how


def _rating_rows(data: _Data, full: Fit, sample: Bootstrap | None, level: float) -> list[RatingRow]:
    games = data.games
    count = np.bincount(games.first, minlength=games.players) + np.bincount(
        games.second, minlength=games.players
    )
    first_points = np.where(games.outcome == FIRST_WINS, 1.0, 0.0)
    first_points[games.outcome == DRAW] = 0.5
    points = np.bincount(games.first, first_points, games.players) + np.bincount(
        games.second, 1 - first_points, games.players
    )
    low, high = sample.interval(level) if sample is not None else (None, None)
    # Each version plays one game (its bot's): read it from every game it played, first or
    # second, so that one that only ever moved second is not taken for a player of game 0.
    kind_of = np.zeros(games.players, dtype=np.int64)
    kind_of[games.first] = games.kind
    kind_of[games.second] = games.kind
    rows = []
    for kind in range(len(data.kinds)):
        members = sorted(np.flatnonzero(kind_of == kind), key=lambda p: -full.ratings[p])
        for rank, player in enumerate(members, start=1):
            below = members[rank] if rank < len(members) else None
            los = None
            if sample is not None and below is not None:
                los = sample.superiority(int(player), int(below))
            rows.append(
                RatingRow(
                    version=data.versions[player],
                    rank=rank,
                    rating=float(full.ratings[player]),
                    low=None if low is None else float(low[player]),
                    high=None if high is None else float(high[player]),
                    games=int(count[player]),
                    points=float(points[player]),
                    los_next=los,
                )
            )
    return rows


def _kind_rows(data: _Data, full: Fit) -> list[KindRow]:
    per_kind = np.bincount(data.games.kind, minlength=len(data.kinds))
    return [
        KindRow(name, float(full.advantage[k]), float(full.draw_elo[k]), int(per_kind[k]))
        for k, name in enumerate(data.kinds)
    ]


def _history(
    data: _Data, settings: FitSettings, progress: Callable[[str, int, int], None]
) -> list[HistoryRow]:
    """Each version's rating after each period, from the games up to its end."""
    order = list(dict.fromkeys(data.periods))  # sources in the config's order
    if settings.history != "source":
        order.sort()  # weeks and months by time
    rank = {period: step for step, period in enumerate(order)}
    step_of_game = np.array([rank[p] for p in data.periods], dtype=np.int64)
    games, base = data.games, tally(data.games)
    rows: list[HistoryRow] = []
    start: Floats | None = None
    for step, period in enumerate(order):
        upto = step_of_game <= step
        cells = base.cell_of_game[upto] * 3 + games.outcome[upto]
        counts = np.bincount(cells, minlength=3 * len(base.first)).reshape(-1, 3)
        part = Tally(base.first, base.second, base.kind, counts.astype(float), base.cell_of_game)
        found = fit_tally(part, games.players, games.kinds, settings.prior_sd, start=start)
        start = found.vector()
        played = np.bincount(games.first[upto], minlength=games.players) + np.bincount(
            games.second[upto], minlength=games.players
        )
        rows += [
            HistoryRow(data.versions[p], step + 1, period, float(found.ratings[p]), int(played[p]))
            for p in np.flatnonzero(played)
        ]
        progress("history", step + 1, len(order))
    return rows
