"""Benchmark every kind of page of the league dashboard at a million games, served as
`referee league serve` serves it and loaded in headless Chromium: the server time of each page
(its `Server-Timing` header: opening the index, the queries, the HTML), median and 95th
percentile per kind, in ms, beside the browser's own load time and the load average.

The index is the synthetic one of bench_league_pages.py (`build`), plus ratings, a history of
20 steps and each game's parameters for its versions (`add_ratings`), so that the leaderboard,
the bots' charts and the crosstable have rows. Pages (`page_kinds`): the leaderboard (first
page, every version a page deep, a search), a bot's page (first, its games a third down, its
losses by a fault), the games (newest, a third down, oldest, by reason, by game) and the
crosstable. Chromium is Debian's (`--chromium`, /usr/bin/chromium): playwright's own browser
download is not needed.

    python scripts/bench_league_browser.py [--games 1000000] [--runs 20] [--dir D] [--keep]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import trio

from referee.league import queries
from referee.league.config import load_league
from referee.league.index import LeagueIndex, open_index
from referee.league.queries import GameFilter
from scripts.bench_league_pages import build, deep

CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage"]


def add_ratings(folder: Path, steps: int = 20, seed: int = 2) -> None:
    """Ratings, a history and the games' parameters for the synthetic index's versions, as a
    `league rate` writes them (random numbers: the pages' cost, not the fit, is measured)."""
    rng = random.Random(seed)
    index = open_index(folder, writer=True)
    db = index.db
    try:
        with db:
            versions = [v for (v,) in db.execute("SELECT id FROM versions ORDER BY id")]
            ratings, history = [], []
            for v in versions:
                rating = rng.gauss(0, 200)
                ratings.append((v, None, rating, rating - 40, rating + 40, 6000, 3000.0, 0.7))
                for step in range(1, steps + 1):
                    at = rating + rng.gauss(0, 30)
                    wide = 40 * (steps / step) ** 0.5
                    history.append((v, step, f"/runs/week{step % 20}", at, step * 300,
                                    at - wide, at + wide))  # fmt: skip
            db.execute("DELETE FROM ratings")
            db.execute("DELETE FROM history")
            db.executemany(
                "INSERT INTO ratings (version, rank, rating, low, high, games, points, los_next)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                ratings,
            )
            db.execute(  # dense ranks within each game, best first
                "UPDATE ratings SET rank = (SELECT COUNT(*) + 1 FROM ratings r2"
                " JOIN versions v2 ON v2.id = r2.version JOIN bots b2 ON b2.id = v2.bot"
                " WHERE r2.rating > ratings.rating AND b2.game = (SELECT b.game FROM versions v"
                " JOIN bots b ON b.id = v.bot WHERE v.id = ratings.version))"
            )
            db.executemany(
                "INSERT INTO history (version, step, period, rating, games, low, high)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                history,
            )
            db.execute("DELETE FROM kinds")
            db.executemany(
                "INSERT INTO kinds VALUES (?, 40.0, 150.0, 500000)", [("alak",), ("lielow",)]
            )
            db.execute("INSERT OR REPLACE INTO meta VALUES ('rated_at', '2026-02-01T00:00:00')")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('rated_games', '0')")
    finally:
        index.close()


def page_kinds(index: LeagueIndex, bot: int = 7) -> dict[str, str]:
    """Every kind of page of the dashboard, as a path on its server: the deep ones a third of
    the way down their lists (found once here, by OFFSET, which the pages never use)."""
    reason = queries.reasons(index)[0]
    game = queries.games_played(index)[0]

    def after(chosen: GameFilter) -> dict[str, str]:
        if not queries.count_games(index, chosen):  # an empty list: its only page
            return {}
        at = deep(index, chosen).after
        assert at is not None
        return {"after": at}

    def path(base: str, **values: object) -> str:
        return base + ("?" + urlencode(values) if values else "")

    mine = f"/league/bot/{bot}"
    return {
        "board": "/league/",
        "board, every version, page 2": path("/league/", versions="all", page=2),
        "board, a search": path("/league/", q="bot"),
        "bot": mine,
        "bot, games a third down": path(mine, **after(GameFilter(bot=bot))),
        "bot, losses by a fault": path(mine, fault=1, **after(GameFilter(bot=bot, fault=True))),
        "games, newest": "/league/games",
        "games, a third down": path("/league/games", **after(GameFilter())),
        "games, oldest": path("/league/games", oldest=1),
        "games by reason, deep": path(
            "/league/games", reason=reason, **after(GameFilter(reason=reason))
        ),
        "games of a game, deep": path("/league/games", game=game, **after(GameFilter(game=game))),
        "crosstable": path("/league/crosstable", game=game),
    }


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """The league's dashboard, as `referee league serve` makes it, on a free port in a thread
    of its own; yields its address."""
    from referee.web.league_server import league_app
    from referee.web.listen import http_config, serve

    app = league_app(folder, load_league(folder), ["127.0.0.1"])
    ready = threading.Event()
    box: dict[str, Any] = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(partial(serve, app, http_config("127.0.0.1:0")))
            box["url"], box["cancel"] = binds[0], nursery.cancel_scope
            box["token"] = trio.lowlevel.current_trio_token()
            ready.set()

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    if not ready.wait(30):
        raise RuntimeError("the dashboard did not start")
    try:
        yield box["url"]
    finally:
        trio.from_thread.run_sync(box["cancel"].cancel, trio_token=box["token"])
        thread.join(30)


def server_time(response: Any) -> float:
    """The page's server time in ms, from its `Server-Timing: page;dur=MS` header."""
    header = response.headers.get("server-timing", "")
    for part in header.split(","):
        name, _, rest = part.strip().partition(";")
        if name == "page" and rest.startswith("dur="):
            return float(rest[4:])
    raise ValueError(f"no server time in {header!r}")


def quantiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[
        min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--bots", type=int, default=300)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/league-browser-bench"))
    parser.add_argument("--keep", action="store_true", help="measure the index already there")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    if not options.keep:
        if options.dir.exists():
            shutil.rmtree(options.dir)
        begun = time.perf_counter()
        build(options.dir, options.games, options.bots)
        print(f"index of {options.games:,} games built in {time.perf_counter() - begun:.1f} s")
    add_ratings(options.dir)
    index = open_index(options.dir, writer=False)
    try:
        kinds = page_kinds(index)
    finally:
        index.close()
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'page':<30} {'server median':>13} {'p95':>7} {'browser median':>15} {'p95':>7}")
    with served(options.dir) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=options.chromium, headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        for name, path in kinds.items():
            page.goto(url + path)  # once unmeasured: the index's pages in the OS cache
            served_ms, loaded_ms = [], []
            for _ in range(options.runs):
                begun = time.perf_counter()
                response = page.goto(url + path)
                loaded_ms.append((time.perf_counter() - begun) * 1000)
                assert response is not None and response.status == 200, (path, response)
                served_ms.append(server_time(response))
            median, p95 = quantiles(served_ms)
            loaded, loaded95 = quantiles(loaded_ms)
            print(f"{name:<30} {median:>13.1f} {p95:>7.1f} {loaded:>15.1f} {loaded95:>7.1f}")
        browser.close()
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if errors:
        print(f"browser errors: {errors}")


if __name__ == "__main__":
    main()
