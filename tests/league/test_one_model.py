"""One rating model everywhere: a tournament's table (`tournament results`), a league of that
one tournament and `referee match`'s model figure give the same numbers for the same games."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.league.config import FitSettings, LeagueConfig, load_league, save_league
from referee.league.discovery import sync
from referee.league.index import open_index
from referee.league.rating import rate_league
from referee.tournament.rating import rating_difference
from referee.tournament.report import build_report
from referee.tournament.store import open_view
from scripts.league_generator import Plan, generate


def _league_of(tmp_path: Path, source: Path) -> dict[str, tuple[float, float | None, float | None]]:
    """Each bot's (rating, low, high) in a league of `source` alone."""
    folder = tmp_path / "league"
    folder.mkdir()
    save_league(folder, LeagueConfig(name="one", sources=[f"../runs/{source.name}"]))
    index = open_index(folder, writer=True)
    try:
        sync(index, folder, load_league(folder))
        rate_league(index, FitSettings(history="none"), lambda *_: None)
        rows = index.db.execute(
            "SELECT b.name, r.rating, r.low, r.high FROM ratings r"
            " JOIN versions v ON v.id = r.version JOIN bots b ON b.id = v.bot"
        ).fetchall()
    finally:
        index.close()
    return {name: (rating, low, high) for name, rating, low, high in rows}


@pytest.mark.slow
def test_a_tournament_and_a_league_of_it_give_the_same_numbers(tmp_path: Path) -> None:
    (source,) = generate(tmp_path / "runs", Plan(6, 150, 1, seed=3, resubmitted=0.0))
    view = open_view(source)
    try:
        table = build_report(view).ratings
    finally:
        view.close()
    league = _league_of(tmp_path, source)
    assert len(table.rows) == len(league) == 6
    for row in table.rows:
        rating, low, high = league[row.name]
        assert row.rating == pytest.approx(rating, abs=1e-6)
        assert row.low == pytest.approx(low, abs=1e-6)
        assert row.high == pytest.approx(high, abs=1e-6)


@pytest.mark.slow
def test_the_match_figure_is_the_league_difference_for_the_same_games(tmp_path: Path) -> None:
    (source,) = generate(tmp_path / "runs", Plan(2, 40, 1, seed=5, resubmitted=0.0))
    view = open_view(source)
    try:
        rows = view.games()
        game = view.info().game
        first, second = view.players()
    finally:
        view.close()
    match = rating_difference(first, second, rows, game)
    league = _league_of(tmp_path, source)
    assert match.rating is not None and match.low is not None and match.high is not None
    assert match.rating == pytest.approx(league[first][0] - league[second][0], abs=1e-6)
    assert match.low < match.rating < match.high
