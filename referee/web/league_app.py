"""The league's dashboard as routes of a starlette app: `/league/` (the leaderboard, with search
and filters), `/league/bot/{id}` (a bot's versions, rating over time, results by opponent,
faults and games), `/league/games` and `/league/crosstable`. Read-only, GET only.

Every page is one page of rows read from the league's index (`referee.league.queries`) in a
worker thread, with a read-only connection of its own; every query parameter is checked first
(a page number past the last is the last page; a bot that is not there is a 404).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import trio
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from referee.league import queries
from referee.league.config import LeagueConfig
from referee.league.index import LeagueIndex, open_index
from referee.league.queries import At, GameFilter, Page, parse_page_key
from referee.web.archive import small_number
from referee.web.league_pages import (
    Links,
    bot_page,
    crosstable_page,
    games_page,
    leaderboard_page,
    server_links,
)

MAX_TEXT = 100  # characters of a search or filter value
_RESULTS = {"win", "draw", "loss", "blue", "orange"}
_HEADERS = {"Cache-Control": "no-cache"}


def text(request: Request, name: str) -> str | None:
    value = request.query_params.get(name) or None
    if value is not None and len(value) > MAX_TEXT:
        raise HTTPException(400, f"{name} is longer than {MAX_TEXT} characters")
    return value


def page_number(request: Request) -> int:
    raw = request.query_params.get("page")
    if raw is None:
        return 1
    number = small_number(raw, 10**9)
    if number is None or number < 1:
        raise HTTPException(400, "page must be a whole number from 1")
    return number


def page_at(request: Request) -> At:
    """Where a page of games starts: after or before a game's key, or at the oldest."""
    params = request.query_params
    after, before = text(request, "after"), text(request, "before")
    for key in (after, before):
        if key is not None:
            try:
                parse_page_key(key)
            except ValueError:
                raise HTTPException(400, "after and before must be keys of games") from None
    if after is not None and before is not None:
        raise HTTPException(400, "a page is after a game or before one, not both")
    return At(after=after, before=before, oldest=params.get("oldest") == "1")


def game_filter(request: Request, bot: int | None = None) -> GameFilter:
    result = text(request, "result")
    if result is not None and result not in _RESULTS:
        raise HTTPException(400, f"result must be one of {', '.join(sorted(_RESULTS))}")
    return GameFilter(
        bot=bot,
        game=text(request, "game"),
        result=result,
        reason=text(request, "reason"),
        fault=request.query_params.get("fault") == "1",
    )


def last_page(fetch: Callable[[int], Page], wanted: int) -> Page:
    """`wanted`, or the last page when there are fewer."""
    found = fetch(wanted)
    if wanted > found.pages:
        found = fetch(found.pages)
    return found


def league_routes(folder: Path, config: LeagueConfig) -> list[Route]:
    links = server_links("/league")

    async def read(work: Callable[[LeagueIndex], str]) -> Response:
        def run() -> tuple[str, float]:
            begun = time.perf_counter()
            index = open_index(folder, writer=False)
            try:
                return work(index), time.perf_counter() - begun
            finally:
                index.close()

        html, took = await trio.to_thread.run_sync(run)
        # The page's server time (opening the index, its queries, its HTML), for a browser's
        # network panel and for scripts/bench_league_browser.py.
        timing = {"Server-Timing": f"page;dur={took * 1000:.1f}"}
        return HTMLResponse(html, headers=_HEADERS | timing)

    async def board(request: Request) -> Response:
        game, search = text(request, "game"), text(request, "q")
        every = request.query_params.get("versions") == "all"
        wanted = page_number(request)

        def work(index: LeagueIndex) -> str:
            found = last_page(
                lambda n: queries.leaderboard(
                    index, game=game, search=search, all_versions=every, page=n
                ),
                wanted,
            )
            return leaderboard_page(
                config.name,
                found,
                queries.games_played(index),
                (game, search, every),
                _notes(index),
                links,
                queries.components(index),
            )

        return await read(work)

    async def bot(request: Request) -> Response:
        bot_id = small_number(request.path_params["bot"], 10**12)
        if bot_id is None:
            raise HTTPException(404, "no such bot")
        chosen = game_filter(request, bot_id)
        at = page_at(request)

        def work(index: LeagueIndex) -> str:
            versions = queries.bot_versions(index, bot_id)
            if not versions:
                raise HTTPException(404, "no such bot")
            return bot_page(
                versions,
                queries.history(index, bot_id),
                queries.opponents(index, bot_id),
                queries.faults(index, bot_id),
                queries.games(index, chosen, at),
                chosen,
                queries.reasons(index),
                links,
            )

        return await read(work)

    async def games(request: Request) -> Response:
        chosen = game_filter(request)
        at = page_at(request)

        def work(index: LeagueIndex) -> str:
            found = queries.games(index, chosen, at)
            return games_page(
                found, chosen, queries.reasons(index), queries.games_played(index), links
            )

        return await read(work)

    async def crosstable(request: Request) -> Response:
        game = text(request, "game")
        top = small_number(request.query_params.get("top", "64"), queries.MAX_CROSSTABLE)
        if top is None or top < 1:
            raise HTTPException(400, f"top must be 1..{queries.MAX_CROSSTABLE}")

        def work(index: LeagueIndex) -> str:
            played = queries.games_played(index)
            chosen = game or (played[0] if played else "")
            if chosen not in played:
                raise HTTPException(404, "no such game in this league")
            return crosstable_page(queries.crosstable(index, chosen, top), chosen, links)

        return await read(work)

    return [
        Route("/", board),
        Route("/bot/{bot}", bot),
        Route("/games", games),
        Route("/crosstable", crosstable),
    ]


def _notes(index: LeagueIndex) -> list[str]:
    meta = index.meta()
    notes = [f"{meta.get('rated_games', '0')} rated games", meta.get("fit", "not rated yet")]
    for kind in queries.kinds(index):
        notes.append(
            f"{kind.game}: first move {kind.advantage:+.0f} Elo, draw margin {kind.draw_elo:.0f}"
        )
    if "rated_at" in meta:
        notes.append(f"rated {meta['rated_at'][:16]}")
    return notes + queries.left_out(index)


def home(request: Request) -> Response:
    return RedirectResponse("/league/")


__all__ = ["Links", "home", "league_routes"]
