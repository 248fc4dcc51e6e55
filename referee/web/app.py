"""The web view's routes: pages, JSON of games, and event streams. Read-only, GET only.

Pages are static files; the JSON they draw is the replay JSON (referee.replay) of a record under
a served folder or of a live game in the hub. Every input from a request (record ids, live-game
ids, ply numbers) is checked here before use: malformed input is a 400, input that names nothing
here a 404, never a server error. The Host header must name this machine, so a web page elsewhere
cannot read the records through a rebound domain name.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from importlib import resources
from pathlib import Path
from typing import Any

import trio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from referee.records import RecordError
from referee.replay import Replay, load_replay
from referee.web.archive import Archive, MalformedId, RefusedPath, small_number
from referee.web.live import ID_PATTERN, LiveHub, LiveMatch, Subscribers, sse
from referee.web.renderers import all_renderers
from referee.web.tournaments import tournament_summaries

STATIC = Path(str(resources.files("referee.web") / "static"))
LOCAL_HOSTS = ["127.0.0.1", "localhost", "[::1]", "::1"]
SSE_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


def parse_ply(request: Request, last: int) -> int | None:
    """The `ply` query parameter: absent, or a whole number 0..last (else 400)."""
    raw = request.query_params.get("ply")
    if raw is None:
        return None
    ply = small_number(raw, last)
    if ply is None:
        raise HTTPException(400, f"ply must be a whole number from 0 to {last}")
    return ply


def page(name: str, check: Callable[[Request], object] | None = None) -> Callable[[Request], Any]:
    """A static page; `check` validates the request's path parameters first (raising 404)."""

    async def endpoint(request: Request) -> Response:
        if check is not None:
            check(request)
        return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

    return endpoint


def create_app(archive: Archive, hub: LiveHub, allowed_hosts: list[str] | None = None) -> Starlette:
    """The starlette app serving `archive`'s folders and `hub`'s live games."""

    def record_path(request: Request) -> Path:
        try:
            return archive.resolve_record(request.path_params["record_id"])
        except MalformedId as exc:
            raise HTTPException(400, f"record refused: {exc}") from None
        except RefusedPath as exc:
            raise HTTPException(404, f"record refused: {exc}") from None

    async def replay_json(request: Request) -> Response:
        path = record_path(request)
        try:
            replay: Replay = await trio.to_thread.run_sync(load_replay, path)
        except RecordError as exc:
            raise HTTPException(422, str(exc).replace(str(path), "record")) from None
        ply = parse_ply(request, len(replay.frames) - 1)
        if ply is not None:
            frame = replay.frames[ply]
            return JSONResponse({"game": replay.game, "ply": ply, **frame.model_dump(mode="json")})
        return Response(replay.model_dump_json(), media_type="application/json")

    async def tournaments_json(request: Request) -> Response:
        found = await trio.to_thread.run_sync(tournament_summaries, archive, hub)
        return JSONResponse({"tournaments": found})

    async def archive_json(request: Request) -> Response:
        records = await trio.to_thread.run_sync(archive.list_records)
        return JSONResponse({"folders": len(archive.roots), "records": records})

    def live_id(request: Request) -> str:
        match_id: str = request.path_params["match_id"]
        if not ID_PATTERN.fullmatch(match_id):
            raise HTTPException(404, "no such live game")
        return match_id

    def live_match(request: Request) -> LiveMatch:
        match_id = request.path_params["match_id"]
        match = hub.get(match_id) if ID_PATTERN.fullmatch(match_id) else None
        if match is None:
            raise HTTPException(404, "no such live game")
        return match

    async def live_list(request: Request) -> Response:
        # Each with the id of its record in the archive, whose row the dashboard keeps in step.
        matches = [{**m.summary(), "record": archive.id_of(m.record)} for m in hub.matches.values()]
        return JSONResponse({"matches": matches})

    async def live_json(request: Request) -> Response:
        return JSONResponse(live_match(request).snapshot())

    async def live_events(request: Request) -> Response:
        match = live_match(request)
        first, send, receive = match.subscribe()
        return event_stream(first, match.subscribers, send, receive)

    async def game_renderers(request: Request) -> Response:
        script = await trio.to_thread.run_sync(all_renderers)
        return Response(script, media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    async def hub_events(request: Request) -> Response:
        send, receive = hub.dashboards.add()
        return event_stream(sse("hello", {}), hub.dashboards, send, receive)

    routes = [
        Route("/", page("index.html")),
        Route("/live/{match_id}", page("view.html", live_id)),
        Route("/replay/{record_id:path}", page("view.html", record_path)),
        Route("/api/archive", archive_json),
        Route("/api/tournaments", tournaments_json),
        Route("/api/replay/{record_id:path}", replay_json),
        Route("/api/live", live_list),
        Route("/api/live/{match_id}", live_json),
        Route("/api/live/{match_id}/events", live_events),
        Route("/api/events", hub_events),
        Route("/games/renderers.js", game_renderers),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    hosts = allowed_hosts or LOCAL_HOSTS
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=hosts)]
    return Starlette(routes=routes, middleware=middleware)


def event_stream(
    first: str,
    subscribers: Subscribers,
    send: trio.MemorySendChannel[str],
    receive: trio.MemoryReceiveChannel[str],
) -> StreamingResponse:
    """Server-sent events: `first`, then whatever arrives on `receive`, until either side ends."""

    async def stream() -> AsyncIterator[str]:
        try:
            yield "retry: 2000\n\n" + first
            async with receive:
                async for message in receive:
                    yield message
        finally:
            subscribers.discard(send)

    return StreamingResponse(stream(), media_type="text/event-stream", headers=SSE_HEADERS)
