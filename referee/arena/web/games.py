"""The games: the list of played games, each game's page (its replay through the game's web
renderer, or its live view while it is played), its record as JSON, its live event stream, and
the player's scripts (the web view's own: referee/web/static/player.js and the game's
renderer.js).

Who sees a game is `visibility.may_see_game`; what of it, `disclosure`: a side's stderr,
command and the like go to its author and the staff alone, on the page and in the JSON alike.
"""

from __future__ import annotations

import trio
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from protocols.base import Side
from referee.arena.deadline import ladder_closed
from referee.arena.disclosure import detail_for, replay_for
from referee.arena.game_files import record_file, replay_of
from referee.arena.game_queries import GameView, finished_games, game_view
from referee.arena.live_games import live_id
from referee.arena.pictures import picture
from referee.arena.rows import GameState
from referee.arena.sessions import Session
from referee.arena.visibility import may_see_game, may_see_others_games, private_sides
from referee.arena.web.guards import not_found
from referee.arena.web.site import Site, site_of
from referee.arena.web.viewing import before_of, open_page, path_id, refuse, viewer_of
from referee.replay import Replay
from referee.web.app import STATIC as PLAYER_STATIC
from referee.web.app import event_stream
from referee.web.renderers import renderer_source

PLAYER_HEADERS = {"Cache-Control": "no-cache"}


async def games(request: Request, session: Session | None) -> Response:
    """The played games, newest first: all of them, or the viewer's own where others' are
    hidden from them."""
    site = site_of(request)
    viewer = viewer_of(session)
    before = before_of(request)
    if may_see_others_games(site.config.visibility, viewer):
        account = None
    elif viewer is not None:
        account = viewer.id
    else:
        return refuse(request, session)
    page = await site.store.read(finished_games, account, before)
    context = {"page": page, "own_only": account is not None}
    return site.render(request, "games.html", context, session=session)


async def visible_game(request: Request, session: Session | None) -> GameView | None:
    """The game of the path, if the viewer may see it (None: refuse them)."""
    site = site_of(request)
    game_id = path_id(request)
    viewer = viewer_of(session)
    if viewer is None and not may_see_others_games(site.config.visibility, None):
        return None  # a visitor learns nothing, not even whether the game exists
    view = await site.store.read(game_view, game_id)
    if view is None or not may_see_game(site.config.visibility, viewer, view.owners):
        return None
    return view


async def replay_of_game(site: Site, view: GameView) -> Replay | None:
    path = record_file(site.root, view.game.record)
    if path is None:
        return None
    return await trio.to_thread.run_sync(replay_of, path)


async def game(request: Request, session: Session | None) -> Response:
    site = site_of(request)
    view = await visible_game(request, session)
    if view is None:
        return refuse(request, session)
    viewer = viewer_of(session)
    sides = private_sides(viewer, view.owners)
    live = view.game.state is GameState.RUNNING and site.live.get(live_id(view.id)) is not None
    replay = None if live else await replay_of_game(site, view)
    stderr = []
    if replay is not None and replay.result is not None:
        for side in Side:
            report = replay.result.bots.get(side)
            if side in sides and report is not None:
                stderr.append((side.value, view.player(side), report))
    final = replay.frames[-1] if replay is not None and replay.frames else None
    rerun_open = False
    if viewer is not None and viewer.is_staff:
        closed = await site.store.read(ladder_closed, site.config.deadline.at, site.clock())
        rerun_open = closed is None
    context = {
        "rerun_open": rerun_open,
        "view": view,
        "game": view.game,
        "detail": detail_for(view.game.detail or "", sides),
        "replay": replay,
        "final": final,
        "picture": picture(replay.game, final) if replay is not None and final else None,
        "live": live,
        "stderr": stderr,
    }
    return site.render(request, "game.html", context, session=session)


async def game_record(request: Request, session: Session | None) -> Response:
    """The game's replay JSON (referee/replay.py's), with only the sides' private parts the
    viewer may see."""
    site = site_of(request)
    view = await visible_game(request, session)
    if view is None:
        return refuse(request, session)
    replay = await replay_of_game(site, view)
    if replay is None:
        raise not_found()
    viewer = viewer_of(session)
    shown = replay_for(replay, private_sides(viewer, view.owners), bool(viewer and viewer.is_staff))
    return Response(shown.model_dump_json(), media_type="application/json")


async def game_events(request: Request, session: Session | None) -> Response:
    """The live game's events (server-sent): a snapshot, then each ply and the result; the
    same for every viewer, with no side's private parts (live_games.py)."""
    site = site_of(request)
    view = await visible_game(request, session)
    if view is None:
        return refuse(request, session)
    match = site.live.get(live_id(view.id))
    if match is None:
        raise not_found()
    first, send, receive = match.subscribe()
    return event_stream(first, match.subscribers, send, receive)


async def player_script(request: Request) -> Response:
    return FileResponse(PLAYER_STATIC / "player.js", headers=PLAYER_HEADERS)


async def player_style(request: Request) -> Response:
    return FileResponse(PLAYER_STATIC / "style.css", headers=PLAYER_HEADERS)


async def game_renderer(request: Request) -> Response:
    """The arena's game's board renderer (its package's renderer.js)."""
    script = await trio.to_thread.run_sync(renderer_source, site_of(request).config.game)
    return Response(script, media_type="text/javascript", headers=PLAYER_HEADERS)


ROUTES = [
    open_page("/games", games),
    open_page("/games/{id:int}", game),
    open_page("/games/{id:int}/record.json", game_record),
    open_page("/games/{id:int}/live", game_events),
    Route("/player/player.js", player_script, methods=["GET"]),
    Route("/player/style.css", player_style, methods=["GET"]),
    Route("/player/renderer.js", game_renderer, methods=["GET"]),
]
