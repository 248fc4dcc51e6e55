"""Who may reach a route, said where the route is declared: every route of the arena is made
by one of the helpers below, and each one checks before its handler runs.

    page("/versions/{id:int}", handler)            GET; signed in (else to the login page)
    page("/staff", handler, staff=True)            ... and staff (a student gets a 404)
    action("/account/token", handler)              POST: the same, plus the Origin/Referer
                                                   check and the session's CSRF token
    anonymous_action("/login", handler)            POST before a login: Origin/Referer and
                                                   the signed form token of the page
    api("/api/whoami", handler)                    a Bearer API token; cookies are ignored

A handler gets the request and the `Session` (an action also gets the parsed form; an API
handler the `Account`). What a role may not see is a 404, the same as a page that does not
exist, so that ids cannot be probed; a handler that looks up an object by id must answer 404
(`not_found()`) for an object its viewer may not see. POST routes made any other way would
skip the CSRF check: `tests/arena/test_web.py` checks that every POST route is an action.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from referee.arena import accounts
from referee.arena.rows import Account
from referee.arena.sessions import CSRF_FIELD, FORM_COOKIE, Session, find_session, same_secret
from referee.arena.web.security import same_origin
from referee.arena.web.site import site_of

PageHandler = Callable[[Request, Session], Awaitable[Response]]
ActionHandler = Callable[[Request, Session, FormData], Awaitable[Response]]
AnonymousHandler = Callable[[Request, FormData], Awaitable[Response]]
ApiHandler = Callable[[Request, Account], Awaitable[Response]]
Endpoint = Callable[[Request], Awaitable[Response]]
CHECKS_FORMS = "_arena_checks_forms"  # marks an endpoint that checks origin and form token
FORM_LIMITS: dict[str, Any] = {"max_files": 0, "max_fields": 50, "max_part_size": 64 * 1024}


def not_found() -> HTTPException:
    """The one answer to what does not exist and to what the viewer may not see."""
    return HTTPException(404, "Not found")


async def current_session(request: Request) -> Session | None:
    """The signed-in session of a request, if its cookie names a live one."""
    site = site_of(request)
    session_id = site.session_id(request)
    if session_id is None:
        return None
    session: Session | None = await site.store.read(find_session, session_id, site.clock())
    return session


def to_login(request: Request) -> Response:
    """Off to the login page, coming back to this page (a GET) afterwards."""
    back = request.url.path if request.method == "GET" else "/"
    return RedirectResponse(f"/login?next={quote(back, safe='/')}", status_code=303)


def _allowed(session: Session, staff: bool) -> None:
    if staff and not session.account.is_staff:
        raise not_found()


def page(path: str, handler: PageHandler, *, staff: bool = False, name: str | None = None) -> Route:
    """A GET page for signed-in users (`staff`: for staff only)."""

    async def endpoint(request: Request) -> Response:
        session = await current_session(request)
        if session is None:
            return to_login(request)
        _allowed(session, staff)
        return await handler(request, session)

    return Route(path, endpoint, methods=["GET"], name=name or handler.__name__)


async def _checked_form(request: Request, limits: dict[str, Any] | None = None) -> FormData:
    """The form of a POST from the arena's own pages (Origin/Referer), or a 403."""
    if not same_origin(request, site_of(request).config.public_url()):
        raise HTTPException(403, "This form did not come from the arena's own pages.")
    return await request.form(**(limits or FORM_LIMITS))


def _field(form: FormData, name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) else None


def action(
    path: str,
    handler: ActionHandler,
    *,
    staff: bool = False,
    max_body_size: int | None = None,
    form_limits: dict[str, Any] | None = None,
    name: str | None = None,
) -> Route:
    """A POST for signed-in users: the role, same origin, then the session's CSRF token.
    `max_body_size` and `form_limits` (`Request.form`'s) raise the limits of a form that
    takes a file (the app's own limit is small)."""

    async def endpoint(request: Request) -> Response:
        session = await current_session(request)
        if session is None:
            return to_login(request)
        _allowed(session, staff)
        form = await _checked_form(request, form_limits)
        if not same_secret(_field(form, CSRF_FIELD), session.csrf):
            raise HTTPException(403, "This form has expired: go back, reload the page, retry.")
        return await handler(request, session, form)

    setattr(endpoint, CHECKS_FORMS, True)
    return Route(
        path, endpoint, methods=["POST"], name=name or handler.__name__, max_body_size=max_body_size
    )


def anonymous_action(path: str, handler: AnonymousHandler, *, name: str | None = None) -> Route:
    """A POST before a login (log in, accept an invite): same origin, and the form token of the
    page, which must match the visitor's form cookie and carry the arena's signature."""

    async def endpoint(request: Request) -> Response:
        form = await _checked_form(request)
        token = _field(form, CSRF_FIELD)
        cookie = request.cookies.get(FORM_COOKIE)
        if cookie is None or not same_secret(token, cookie):
            raise HTTPException(403, "This form has expired: go back, reload the page, retry.")
        if not site_of(request).signer.form_token_valid(cookie):
            raise HTTPException(403, "This form has expired: go back, reload the page, retry.")
        return await handler(request, form)

    setattr(endpoint, CHECKS_FORMS, True)
    return Route(path, endpoint, methods=["POST"], name=name or handler.__name__)


def api(
    path: str,
    handler: ApiHandler,
    *,
    methods: tuple[str, ...] = ("GET",),
    max_body_size: int | None = None,
) -> Route:
    """A route of the JSON API for `referee arena` commands: an `Authorization: Bearer TOKEN`
    header names the account; cookies are never read, so a web page cannot forge a request."""

    async def endpoint(request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        account = None
        if scheme.lower() == "bearer" and token.strip():
            site = site_of(request)
            account = await site.store.read(accounts.by_token, token.strip())
        if account is None:
            return JSONResponse(
                {"error": "give a valid API token: Authorization: Bearer TOKEN"},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        return await handler(request, account)

    # The API's requests carry no cookie, hence nothing a forged request could ride on.
    setattr(endpoint, CHECKS_FORMS, True)
    return Route(
        path, endpoint, methods=list(methods), name=handler.__name__, max_body_size=max_body_size
    )


def field(form: FormData, name: str) -> str:
    """A text field of a form ('' if missing, or if it is a file)."""
    return _field(form, name) or ""
