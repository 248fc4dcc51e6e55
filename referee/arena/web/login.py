"""Logging in and out, and accepting an invite (setting the first password).

A failed login says only "wrong username or password", whatever was wrong (no such user, a
wrong password, a disabled account, no password set yet), and takes as long either way. Failed
logins are counted per username and per client address (`ratelimits.py`); at the limit, the
login is refused before the password is even checked, until the window has passed.
"""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from referee.arena import accounts, ratelimits
from referee.arena.accounts import hash_password, verify_password
from referee.arena.sessions import SESSION_COOKIE, Session, end_session, start_session
from referee.arena.web.guards import action, anonymous_action, current_session, field
from referee.arena.web.site import Site, client_address, site_of

WRONG = "Wrong username or password."
TOO_MANY = "Too many failed logins: wait {minutes} minutes, then try again."
INVITE_GONE = (
    "This invite link does not work: it was used already, or it expired. Ask the staff for "
    "a new one."
)


def safe_next(target: str) -> str:
    """Where to go after logging in: a path of this site only (never `//host` or a URL)."""
    if target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/"


async def login_page(request: Request) -> Response:
    site = site_of(request)
    if await current_session(request) is not None:
        return RedirectResponse("/", status_code=303)
    next_page = safe_next(request.query_params.get("next", "/"))
    return site.render(request, "login.html", {"next": next_page, "error": None})


async def login(request: Request, form: FormData) -> Response:
    site = site_of(request)
    username, password = field(form, "username").strip().lower(), field(form, "password")
    next_page = safe_next(field(form, "next") or "/")
    settings = site.config.accounts
    keys = {
        ratelimits.login_key(username): settings.login_attempts,
        ratelimits.address_key(client_address(request)): settings.address_attempts,
    }
    window = timedelta(minutes=settings.window_minutes)
    now = site.clock()

    def refused(message: str, status: int) -> Response:
        context = {"next": next_page, "error": message, "username": username}
        return site.render(request, "login.html", context, status=status)

    if await site.store.read(ratelimits.limited, keys, now, window):
        return refused(TOO_MANY.format(minutes=round(settings.window_minutes)), 429)
    account = await site.store.read(accounts.by_username, username)
    correct = await site.hash_work(partial(verify_password, account, password))
    if account is None or not correct or account.disabled:
        await site.store.write(ratelimits.add, list(keys), now)
        return refused(WRONG, 400)
    if accounts.needs_rehash(account):  # hashed with older parameters: renew while we can
        renewed = await site.hash_work(partial(hash_password, password))
        await site.store.write(accounts.set_password, account.id, renewed)
    await site.store.write(ratelimits.clear, ratelimits.login_key(username))
    return await signed_in(request, site, account.id, next_page)


async def signed_in(request: Request, site: Site, account_id: int, to: str) -> Response:
    """A new session for the account, replacing the one the browser came with (a session id
    known before the login is worth nothing after it)."""
    session_id = await site.store.write(
        start_session, account_id, site.clock(), site.session_lifetime, site.session_id(request)
    )
    response = RedirectResponse(to, status_code=303)
    site.set_session_cookie(request, response, session_id)
    return response


async def logout(request: Request, session: Session, form: FormData) -> Response:
    site = site_of(request)
    session_id = site.session_id(request)
    if session_id is not None:
        await site.store.write(end_session, session_id)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


async def invite_page(request: Request) -> Response:
    site = site_of(request)
    token = request.path_params["token"]
    account = await site.store.read(accounts.by_invite, token, site.clock())
    if account is None:
        return site.render(request, "message.html", {"message": INVITE_GONE}, status=404)
    context = {"account": account, "error": None, "min_length": _min_length(site)}
    return site.render(request, "invite.html", context)


async def accept_invite(request: Request, form: FormData) -> Response:
    site = site_of(request)
    token = request.path_params["token"]
    account = await site.store.read(accounts.by_invite, token, site.clock())
    if account is None:
        return site.render(request, "message.html", {"message": INVITE_GONE}, status=404)
    password = field(form, "password")
    problem = password_problem(site, password, field(form, "confirm"))
    if problem is not None:
        context = {"account": account, "error": problem, "min_length": _min_length(site)}
        return site.render(request, "invite.html", context, status=400)
    hashed = await site.hash_work(partial(hash_password, password))
    redeemed = await site.store.write(accounts.redeem_invite, token, hashed, site.clock())
    if redeemed is None:  # spent or expired meanwhile
        return site.render(request, "message.html", {"message": INVITE_GONE}, status=404)
    return await signed_in(request, site, redeemed.id, "/")


def _min_length(site: Site) -> int:
    return site.config.accounts.min_password_length


MAX_PASSWORD = 1024  # argon2 takes any length; a bound keeps a request's cost known


def password_problem(site: Site, password: str, confirm: str) -> str | None:
    """What is wrong with a new password, or None."""
    least = _min_length(site)
    if len(password) < least:
        return f"Choose a password of at least {least} characters."
    if len(password) > MAX_PASSWORD:
        return f"Choose a password of at most {MAX_PASSWORD} characters."
    if password != confirm:
        return "The two passwords differ."
    return None


ROUTES = [
    Route("/login", login_page, methods=["GET"]),
    anonymous_action("/login", login),
    action("/logout", logout),
    Route("/invite/{token}", invite_page, methods=["GET"]),
    anonymous_action("/invite/{token}", accept_invite),
]
