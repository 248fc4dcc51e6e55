"""`referee league export DIR --html OUT`: the league's dashboard as plain files that any web
server (or a browser opening the folder) shows, with no program behind them.

The pages are the served ones (`league_pages`) with the links made file names and without the
search forms: the leaderboard (latest versions, and every version), each bot's page (with its
games, a page of files for each page of them), every game, a crosstable per game of the
league, and, unless told not to, each game's replay (one small page per game that shares the
player, the style and each game's renderer in `assets/`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from pathlib import Path

from referee.league import queries
from referee.league.config import LeagueConfig
from referee.league.index import LeagueIndex
from referee.league.queries import At, GameFilter, GamePage, Page
from referee.nofollow import make_folder
from referee.printable import printable
from referee.records import RecordError
from referee.replay import load_replay
from referee.web.export_files import ExportFiles
from referee.web.html_export import json_in_script, static_text
from referee.web.league_pages import (
    Links,
    bot_page,
    crosstable_page,
    games_page,
    leaderboard_page,
)
from referee.web.renderers import renderer_source

Progress = Callable[[str, int, int], None]

_REPLAY = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><link rel="stylesheet" href="../../assets/style.css"></head>
<body><p><a href="../../index.html">← leaderboard</a></p><div id="app"></div>
<script src="../../assets/player.js"></script>
<script src="../../assets/{renderer}"></script>
<script type="application/json" id="replay-data">{data}</script>
<script>
Referee.startPlayer(document.getElementById("app"),
  JSON.parse(document.getElementById("replay-data").textContent), {{live: false}});
</script></body></html>
"""


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "game"


def numbered(stem: str, page: int) -> str:
    return f"{stem}.html" if page == 1 else f"{stem}-{page}.html"


def static_links(replays: bool) -> Links:
    return Links(
        board=lambda game, search, every, page: numbered("all" if every else "index", page),
        bot=lambda bot: f"bot-{bot}.html",
        bot_games=lambda bot, chosen, at: numbered(f"bot-{bot}", at.number),
        games=lambda chosen, at: numbered("games", at.number),
        crosstable=lambda game: f"crosstable-{slug(game)}.html",
        replay=(lambda row: f"replays/{row.source}/{row.number}.html")
        if replays
        else lambda _: None,
        searchable=False,
    )


def export_league(
    index: LeagueIndex,
    config: LeagueConfig,
    out: Path,
    *,
    replays: bool = True,
    progress: Progress | None = None,
) -> ExportFiles:
    """Write the dashboard into `out`: only the files that change, and the files of the last
    export that this one does not make removed."""
    step = progress or (lambda name, done, total: None)
    make_folder(out)  # as every file below: never through a link someone else planted
    links = static_links(replays)
    writer = ExportFiles(out)
    notes = [config.name, index.meta().get("fit", "not rated yet"), *queries.left_out(index)]
    played = queries.games_played(index)
    split = queries.components(index)
    for every in (False, True):

        def board(n: int, every: bool = every) -> Page:
            return queries.leaderboard(index, all_versions=every, page=n)

        def render(page: Page, every: bool = every) -> str:
            return leaderboard_page(
                config.name, page, played, (None, None, every), notes, links, split
            )

        def name(n: int, every: bool = every) -> str:
            return links.board(None, None, every, n)

        _pages(board, render, name, writer)
    for game in played:
        writer.write(
            links.crosstable(game), crosstable_page(queries.crosstable(index, game), game, links)
        )
    _game_pages(
        lambda at: queries.games(index, GameFilter(), at),
        lambda page: games_page(page, GameFilter(), (), played, links),
        lambda at: links.games(GameFilter(), at),
        writer,
    )
    bots = [r[0] for r in index.db.execute("SELECT id FROM bots ORDER BY id")]
    for done, bot in enumerate(bots, start=1):
        _bot_pages(index, bot, links, writer)
        step("bot pages", done, len(bots))
    if replays:
        _replays(index, config, out, writer, step)
    writer.finish()
    return writer


def _pages(
    fetch: Callable[[int], Page],
    render: Callable[[Page], str],
    name: Callable[[int], str],
    writer: ExportFiles,
) -> None:
    page = fetch(1)
    for number in range(1, page.pages + 1):
        if number > 1:
            page = fetch(number)
        writer.write(name(number), render(page))


def _game_pages(
    fetch: Callable[[At], GamePage],
    render: Callable[[GamePage], str],
    name: Callable[[At], str],
    writer: ExportFiles,
) -> None:
    """Every page of a list of games, newest first, each from where the one before ended."""
    at: At | None = At()
    while at is not None:
        page = fetch(at)
        writer.write(name(at), render(page))
        at = page.older


def _bot_pages(index: LeagueIndex, bot: int, links: Links, writer: ExportFiles) -> None:
    versions = queries.bot_versions(index, bot)
    history = queries.history(index, bot)
    opponents = queries.opponents(index, bot)
    faults = queries.faults(index, bot)
    chosen = GameFilter(bot=bot)
    _game_pages(
        lambda at: queries.games(index, chosen, at),
        lambda page: bot_page(versions, history, opponents, faults, page, chosen, (), links),
        lambda at: links.bot_games(bot, chosen, at),
        writer,
    )


def _replays(
    index: LeagueIndex, config: LeagueConfig, out: Path, writer: ExportFiles, step: Progress
) -> None:
    for name in ("style.css", "player.js"):
        writer.write(f"assets/{name}", static_text(name))
    for game in queries.games_played(index):
        writer.write(f"assets/renderer-{slug(game)}.js", renderer_source(game))
    rows = index.db.execute(
        "SELECT s.position, g.number, g.record, g.game FROM games g"
        " JOIN sources s ON s.id = g.source ORDER BY s.position, g.number"
    ).fetchall()
    paths = dict(index.db.execute("SELECT position, path FROM sources").fetchall())
    for done, (position, number, record, game) in enumerate(rows, start=1):
        writer.write(
            f"replays/{position}/{number}.html", _replay_page(Path(paths[position]) / record, game)
        )
        if done % 200 == 0 or done == len(rows):
            step("replays", done, len(rows))


def _replay_page(path: Path, game: str) -> str:
    try:
        replay = load_replay(path)
    except RecordError as exc:
        return f"<!doctype html><title>record unreadable</title><p>{escape(str(exc))}</p>"
    title = f"{game}: {' vs '.join(p.name for p in replay.header.players.values())}"
    return _REPLAY.format(
        title=escape(printable(title)),  # names a bot's author chose
        renderer=f"renderer-{slug(game)}.js",
        data=json_in_script(replay.model_dump_json()),
    )
