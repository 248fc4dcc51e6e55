"""What the ladder's pages share: pages a visitor may see too (when `[visibility]` is public),
the one way to refuse a page, page cursors, and the ETag that lets a page refresh itself
cheaply (static/arena-refresh.js).

A page made with `open_page` runs for visitors as well as signed-in users; its handler gets the
session or None and, where the viewer may not see what was asked, returns `refuse(...)`: a
visitor is sent to the login page (as by every other page), a signed-in user gets the 404 of a
page that does not exist, so that ids cannot be probed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from referee.arena.paging import LARGEST_ID, cursor
from referee.arena.rows import Account
from referee.arena.sessions import Session
from referee.arena.web.guards import current_session, not_found, to_login

OpenHandler = Callable[[Request, Session | None], Awaitable[Response]]


def open_page(path: str, handler: OpenHandler, *, name: str | None = None) -> Route:
    """A GET page for anyone; the handler decides, with the viewer, what it shows."""

    async def endpoint(request: Request) -> Response:
        return await handler(request, await current_session(request))

    return Route(path, endpoint, methods=["GET"], name=name or handler.__name__)


def viewer_of(session: Session | None) -> Account | None:
    return session.account if session is not None else None


def refuse(request: Request, session: Session | None) -> Response:
    """The answer to a viewer who may not see the page: the login page, or a 404."""
    if session is None:
        return to_login(request)
    raise not_found()


def before_of(request: Request, name: str = "before") -> int | None:
    """The page cursor of a list (`?before=ID`), or a 400 for one that is not an id."""
    try:
        return cursor(request.query_params.get(name))
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None


def path_id(request: Request, name: str = "id") -> int:
    """An id of the path (the route's `int` converter has read its digits); one larger than
    any id names nothing (and SQLite could not even be asked about it): a 404."""
    value = request.path_params[name]
    if not isinstance(value, int) or not 0 < value <= LARGEST_ID:
        raise not_found()
    return value


def with_etag(request: Request, response: Response) -> Response:
    """The response with an ETag of its body; a 304 when the page asking already has it (a
    page refreshing itself downloads only what changed)."""
    tag = '"' + hashlib.sha256(response.body).hexdigest()[:32] + '"'
    if request.headers.get("if-none-match") == tag:
        return Response(status_code=304, headers={"ETag": tag})
    response.headers["ETag"] = tag
    return response
