"""`referee league serve`: the league's dashboard under /league/, beside the web view's replay
of every game of the league's sources (their folders are the served folders, in the order of
the league's config, so a game's replay is `/replay/<source>/<record>`)."""

from __future__ import annotations

import logging
from functools import partial
from pathlib import Path

import trio
from rich.console import Console
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import Mount, Route

from referee.league.config import LeagueConfig, source_folder
from referee.web.app import LOCAL_HOSTS, create_app
from referee.web.archive import Archive
from referee.web.league_app import home, league_routes
from referee.web.listen import http_config, serve
from referee.web.live import LiveHub
from referee.web.server import check_can_bind, wait_for_interrupt


def league_app(folder: Path, config: LeagueConfig, hosts: list[str]) -> Starlette:
    """The dashboard and, for the replays, the web view of the sources' folders."""
    archive = Archive.of([source_folder(folder, s) for s in config.sources])
    viewer = create_app(archive, LiveHub(), allowed_hosts=hosts)
    routes = [
        Route("/", home),
        Mount("/league", routes=league_routes(folder, config)),
        Mount("", app=viewer),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=hosts)]
    return Starlette(routes=routes, middleware=middleware)


async def serve_league(
    folder: Path, config: LeagueConfig, host: str, port: int, err: Console
) -> None:
    """Serve until Ctrl-C or SIGTERM."""
    hosts = ["*"] if host in ("0.0.0.0", "::") else sorted({*LOCAL_HOSTS, host})
    app = league_app(folder, config, hosts)
    logging.getLogger("hypercorn.error").setLevel(logging.WARNING)
    check_can_bind(host, port)
    async with trio.open_nursery() as nursery:
        bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        binds = await nursery.start(partial(serve, app, http_config(bind)))
        err.print(f"[bold]league dashboard: {binds[0]}/league/[/bold]  (Ctrl-C to stop)")
        await wait_for_interrupt()
        nursery.cancel_scope.cancel()
