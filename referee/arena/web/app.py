"""The arena's web app: its routes, and the layers every request passes on its way in.

From the outside in: the proxy fix (`[server] behind_proxy` only: the client's address and
scheme as the proxy forwarded them), the security headers, the Host check (this machine's
names, the configured host, the public address's and `allowed_hosts`: a page of another site
cannot reach the arena through a rebound domain name), the body limit (`BODY_LIMIT`, raised by
the routes that take a file), then the routes.

A part of the arena adds its pages by adding its module's `ROUTES` to `ROUTE_MODULES` below,
each made with the helpers of `guards.py`, and its templates to `referee/arena/templates/`
(extending `base.html`).
"""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import urlsplit

from hypercorn.middleware import ProxyFixMiddleware
from hypercorn.typing import ASGIFramework
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.body_limit import RequestBodyLimitMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from referee.arena.web import (
    games,
    grades,
    home,
    leaderboard,
    login,
    queue,
    staff,
    students,
    versions,
)
from referee.arena.web.guards import current_session
from referee.arena.web.security import SecurityHeaders
from referee.arena.web.site import STATIC, Site, site_of
from referee.web.app import LOCAL_HOSTS

BODY_LIMIT = 64 * 1024  # any request but an upload: forms of a few fields
ROUTE_MODULES = [login, home, versions, leaderboard, games, queue, students, staff, grades]
MESSAGES = {
    400: "The request was not understood.",
    403: "Refused.",
    404: "Not found.",
    405: "Not allowed here.",
    413: "Too large.",
}


def routes() -> list[BaseRoute]:
    found: list[BaseRoute] = [r for module in ROUTE_MODULES for r in module.ROUTES]
    return [*found, Mount("/static", StaticFiles(directory=STATIC), name="static")]


def allowed_hosts(site: Site, extra: list[str]) -> list[str]:
    """The Host names the arena answers to."""
    server = site.config.server
    names = [*LOCAL_HOSTS, *server.allowed_hosts, *extra]
    if server.host not in ("0.0.0.0", "::"):
        names.append(server.host)
    public = urlsplit(site.config.public_url()).hostname
    if public:
        names.append(public)
    return sorted(set(names))


async def http_error(request: Request, exc: Exception) -> Response:
    """Errors as a page (or JSON for the API), with the same words for every 404."""
    assert isinstance(exc, HTTPException)
    status = exc.status_code
    message = exc.detail if status != 404 else MESSAGES[404]
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status, headers=exc.headers)
    site = site_of(request)
    session = await current_session(request) if status in (403, 404) else None
    context = {"message": message or MESSAGES.get(status, "Error.")}
    return site.render(request, "message.html", context, session=session, status=status)


def create_app(site: Site, *, extra_hosts: list[str] | None = None) -> ASGIApp:
    """The app serving `site`; `extra_hosts`: more Host names (`serve --allowed-host`)."""
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(site, extra_hosts or [])),
        # Here rather than as the app's `max_body_size`, which starlette puts outside every
        # middleware: its 413 would go out without the security headers.
        Middleware(RequestBodyLimitMiddleware, max_body_size=BODY_LIMIT),
    ]
    handlers: dict[Any, Any] = {HTTPException: http_error}
    app = Starlette(
        routes=routes(),
        middleware=middleware,
        exception_handlers=handlers,
    )
    app.state.site = site
    if site.config.server.behind_proxy:
        fixed = ProxyFixMiddleware(cast(ASGIFramework, app), mode="legacy", trusted_hops=1)
        return cast(ASGIApp, fixed)
    return app
