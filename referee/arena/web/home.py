"""Each role's home page, the account page (a new API token, shown once; a new
password) and the API's `whoami`.

A student's home lists their versions (`web/versions.py` makes the rows); the arena's other
parts fill in the rest: a student's games, the staff's controls.
"""

from __future__ import annotations

from functools import partial

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from referee.arena import accounts, versions
from referee.arena.accounts import hash_password, verify_password
from referee.arena.rows import Account
from referee.arena.sessions import Session
from referee.arena.web.guards import action, api, field, page
from referee.arena.web.login import password_problem
from referee.arena.web.site import site_of
from referee.arena.web.versions import row as version_row


async def home(request: Request, session: Session) -> Response:
    site = site_of(request)
    if session.account.is_staff:
        return site.render(request, "home_staff.html", session=session)
    mine = await site.store.read(versions.of_account, session.account.id)
    context = {"versions": [version_row(e) for e in mine]}
    return site.render(request, "home_student.html", context, session=session)


async def account_page(request: Request, session: Session) -> Response:
    return _account(request, session)


def _account(
    request: Request, session: Session, *, message: str | None = None, status: int = 200
) -> Response:
    site = site_of(request)
    context = {"message": message, "min_length": site.config.accounts.min_password_length}
    return site.render(request, "account.html", context, session=session, status=status)


async def new_token(request: Request, session: Session, form: FormData) -> Response:
    """A new API token, on a page shown once (never stored: `no-store` by default)."""
    site = site_of(request)
    token = await site.store.write(accounts.rotate_token, session.account.id)
    context = {"token": token, "url": site.config.public_url()}
    return site.render(request, "token.html", context, session=session)


async def new_password(request: Request, session: Session, form: FormData) -> Response:
    """A new password, given the current one; the account's other sessions end."""
    site = site_of(request)
    account = await site.store.read(accounts.by_id, session.account.id)
    current = field(form, "current")
    if account is None or not await site.hash_work(partial(verify_password, account, current)):
        return _account(request, session, message="The current password is wrong.", status=400)
    password = field(form, "password")
    problem = password_problem(site, password, field(form, "confirm"))
    if problem is not None:
        return _account(request, session, message=problem, status=400)
    hashed = await site.hash_work(partial(hash_password, password))
    await site.store.write(accounts.set_password, account.id, hashed, session.id_hash)
    return _account(request, session, message="Your password is changed.")


async def whoami(request: Request, account: Account) -> Response:
    return JSONResponse(
        {"username": account.username, "name": account.display_name, "role": account.role}
    )


ROUTES = [
    page("/", home),
    page("/account", account_page),
    action("/account/token", new_token),
    action("/account/password", new_password),
    api("/api/whoami", whoami),
]
