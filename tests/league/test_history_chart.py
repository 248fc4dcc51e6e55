"""The rating history chart on a bot's page, in Chromium, served and exported: labelled axes,
each version's interval at each step as a band, steps named by the source's path relative to
the league, and no absolute path of the server anywhere in the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.league.config import load_league
from referee.league.index import open_index
from referee.web.league_export import export_league

from .conftest import serve_league_in_thread

CHART = "svg[aria-label='rating over time']"


def _check_chart(page: Any, rated: Path) -> None:
    chart = page.locator(CHART)
    assert chart.count() == 1
    assert chart.locator("line.axis").count() == 2  # the x and y axes
    titles = chart.locator("text.axis-title").all_text_contents()
    assert "Elo" in titles and any("source" in t for t in titles)
    ticks = chart.locator("text.tick-y").all_text_contents()
    assert len(ticks) >= 3 and all(t.lstrip("+-−").isdigit() for t in ticks)
    steps = chart.locator("text.tick-x").all_text_contents()
    assert steps and all(s.startswith("../runs/") for s in steps)  # as league.toml names them
    assert chart.locator("polygon.band").count() >= 1  # each step's interval
    assert chart.locator("polyline").count() >= 1
    content = page.content()
    root = str(rated.resolve().parent)
    assert root not in content and str(rated.parent) not in content
    assert "/tmp/" not in content


def test_the_chart_served(rated: Path, page: Any) -> None:
    with serve_league_in_thread(rated) as url:
        page.goto(f"{url}/league/bot/1")
        _check_chart(page, rated)


def test_the_chart_exported(rated: Path, tmp_path: Path, page: Any) -> None:
    out = tmp_path / "site"
    index = open_index(rated, writer=False)
    try:
        export_league(index, load_league(rated), out, replays=False)
    finally:
        index.close()
    page.goto((out / "bot-1.html").as_uri())
    _check_chart(page, rated)
