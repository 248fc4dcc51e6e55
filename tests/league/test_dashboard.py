"""The league's dashboard in Chromium: the leaderboard with its intervals, search and
pagination done by the server, a bot's page down to a game's replay, the crosstable, hostile
requests, and the exported files opened from disk."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from referee.league.config import load_league
from referee.league.index import open_index
from referee.web.league_export import export_league

from .conftest import PLAN, serve_league_in_thread


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_from_the_leaderboard_to_a_replay(rated: Path, page: Any) -> None:
    with serve_league_in_thread(rated) as url:
        page.goto(f"{url}/")
        assert page.title() == "test league"
        rows = page.locator("table tr")
        assert rows.count() == 1 + PLAN.players  # each bot's latest version
        assert page.locator(".bar span").count() == PLAN.players
        page.fill("input[name=q]", "bot-00")
        page.click("form button")
        assert page.locator("table tr").count() == 1 + 10  # bot-000 .. bot-009
        assert "q=bot-00" in page.url
        page.click("table tr:nth-child(2) a")
        assert page.locator("h2", has_text="versions").count() == 1
        assert page.locator("h2", has_text="results by opponent").count() == 1
        assert page.locator("svg[aria-label='rating over time'] polyline").count() >= 1
        page.select_option("select[name=result]", "win")
        page.click("form button")
        results = page.locator("table").last.locator("tr td:nth-child(5)").all_inner_texts()
        assert results and all(text.endswith("won") for text in results)
        page.click("text=replay >> nth=0")
        page.wait_for_selector("#app svg", timeout=15000)


def test_pages_are_cut_by_the_server(rated: Path, page: Any) -> None:
    with serve_league_in_thread(rated) as url:
        page.goto(f"{url}/league/games")
        assert page.locator("table tr").count() == 1 + 50
        assert f"{PLAN.games} in all" in page.inner_text(".pages")
        first = page.locator("table tr:nth-child(2)").inner_text()
        page.click(".pages a >> text='older ›'")
        assert "after=" in page.url and page.locator("table tr:nth-child(2)").inner_text() != first
        page.click(".pages a >> text='‹ newer'")
        assert page.locator("table tr:nth-child(2)").inner_text() == first
        page.click(".pages a >> text='oldest »'")
        assert page.locator("table tr").count() == 1 + 50
        assert page.locator(".pages a", has_text="older").count() == 0
        page.goto(f"{url}/league/games?result=draw")
        texts = page.locator("table tr td:nth-child(5)").all_inner_texts()
        assert texts and set(texts) == {"draw"}


def test_the_crosstable(rated: Path, page: Any) -> None:
    with serve_league_in_thread(rated) as url:
        page.goto(f"{url}/league/crosstable?game=tic-tac-toe")
        versions = page.locator("table tr").count() - 1
        assert versions > PLAN.players  # resubmitted bots are there once per version
        assert page.locator("table tr:nth-child(2) td").count() == 3 + versions
        assert status(f"{url}/league/crosstable?top=65") == 400


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/league/bot/999999", 404),
        ("/league/bot/abc", 404),
        ("/league/games?after=x", 400),
        ("/league/games?before=2026~1~x", 400),
        ("/league/games?after=2026~1~2&before=2026~1~3", 400),
        ("/league/games?result=maybe", 400),
        ("/league/?q=" + "a" * 101, 400),
        ("/league/crosstable?game=chess", 404),
    ],
)
def test_bad_requests_are_refused(rated: Path, path: str, code: int) -> None:
    with serve_league_in_thread(rated) as url:
        assert status(url + path) == code


def test_the_exported_files_work_from_disk(rated: Path, tmp_path: Path, page: Any) -> None:
    out = tmp_path / "site"
    index = open_index(rated, writer=False)
    try:
        written = export_league(index, load_league(rated), out).written
    finally:
        index.close()
    assert written > PLAN.games  # a replay page per game, besides the dashboard
    page.goto((out / "index.html").as_uri())
    assert page.locator("table tr").count() == 1 + PLAN.players
    page.click("table tr:nth-child(2) a")
    assert page.locator("h2", has_text="versions").count() == 1
    page.click("text=replay >> nth=0")
    page.wait_for_selector("#app svg", timeout=15000)
    page.goto((out / "crosstable-tic-tac-toe.html").as_uri())
    assert page.locator("table.x tr").count() > PLAN.players
