"""Every kind of page of the league dashboard (those scripts/bench_league_browser.py measures at
a million games) loads in Chromium without an error, and says its server time in a
`Server-Timing` header."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.league.index import open_index
from scripts.bench_league_browser import page_kinds, server_time

from .conftest import serve_league_in_thread


def test_every_kind_of_page_loads_and_says_its_server_time(rated: Path, page: Any) -> None:
    index = open_index(rated, writer=False)
    try:
        kinds = page_kinds(index, bot=1)
    finally:
        index.close()
    assert len(kinds) == 12
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    with serve_league_in_thread(rated) as url:
        for name, path in kinds.items():
            response = page.goto(url + path)
            assert response is not None and response.status == 200, name
            assert server_time(response) > 0, name
            assert page.locator("h1").count() >= 1, name  # a page, not an error's text
    assert console == []
