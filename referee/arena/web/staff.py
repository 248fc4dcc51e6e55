"""The staff's pages: the controls of the ladder (pause or resume scheduling, freeze uploads,
release grades, re-run a game, disqualify a version), the accounts (disable, enable, a new
invite link shown once) and the audit log, a page at a time.

Every route here is for staff only (a student gets the 404 of a page that does not exist), and
every action is a form of the guards (`action`): POST, the arena's own Origin, the session's
CSRF token. Every action is in the audit log: the switches are staff_actions.py's, re-running
a game and disqualifying a version the ladder's controls (controls.py).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial

import trio
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from referee.arena import accounts, controls
from referee.arena.config import ArenaConfig
from referee.arena.deadline import ladder_closed, past_deadline, uploads_closed
from referee.arena.final_progress import FinalProgress, final_progress
from referee.arena.finalists import pinned_at
from referee.arena.paging import LARGEST_ID
from referee.arena.rows import Account
from referee.arena.sessions import Session
from referee.arena.staff_actions import SWITCH_ACTIONS, Flags, flags, invite, switch
from referee.arena.staff_queries import (
    AuditLine,
    accounts_with_versions,
    audit_page,
    game_counts,
)
from referee.arena.store import snapshot
from referee.arena.web.guards import action, field, not_found, page
from referee.arena.web.site import Site, site_of
from referee.arena.web.viewing import before_of
from referee.web.archive import small_number

MAX_REASON = 500  # characters of a disqualification's reason
RECENT_ACTIONS = 10


@dataclass(frozen=True)
class Overview:
    """What the staff page shows of the ladder."""

    flags: Flags
    counts: dict[str, int]
    recent: list[AuditLine]
    closed: str | None  # why the ladder is closed (no re-run then), or None
    pinned_at: str | None  # when the final's versions were pinned (no disqualifying then)
    uploads_closed: str | None  # why uploads are kept as late now, or None
    deadline: datetime | None  # [deadline] at
    past_deadline: bool
    final: FinalProgress | None = None  # the final's games, once it has a store


def overview(db: sqlite3.Connection, config: ArenaConfig, now: datetime) -> Overview:
    with snapshot(db):
        return Overview(
            flags(db),
            game_counts(db),
            audit_page(db, None, RECENT_ACTIONS).items,
            ladder_closed(db, config.deadline.at, now),
            pinned_at(db),
            uploads_closed(db, config, now),
            config.deadline.at,
            past_deadline(config, now),
        )


async def staff(request: Request, session: Session) -> Response:
    site = site_of(request)
    found = await site.store.read(overview, site.config, site.clock())
    if found.pinned_at is not None:
        progress = await trio.to_thread.run_sync(final_progress, site.root)
        found = replace(found, final=progress)
    return site.render(request, "staff.html", {"o": found}, session=session)


def number_field(form: FormData, name: str) -> int:
    """An id typed in a form, or a 400."""
    value = small_number(field(form, name).strip(), LARGEST_ID)
    if not value:
        raise HTTPException(400, f"give the {name}'s number")
    return value


def refused(request: Request, session: Session, problem: str) -> Response:
    site = site_of(request)
    return site.render(request, "message.html", {"message": problem}, session=session, status=409)


async def set_switch(request: Request, session: Session, form: FormData) -> Response:
    """Turn a switch (`paused`, `frozen`, `grades_released`) on or off."""
    site = site_of(request)
    key, on = field(form, "switch"), field(form, "on")
    if key not in SWITCH_ACTIONS or on not in ("1", "0"):
        raise HTTPException(400, "no such switch")
    await site.store.write(switch, site.clock(), session.account.id, key, on == "1")
    return RedirectResponse("/staff", status_code=303)


async def rerun(request: Request, session: Session, form: FormData) -> Response:
    site = site_of(request)
    game_id = number_field(form, "game")
    try:
        new_id = await site.store.write(
            partial(controls.rerun_game, deadline=site.config.deadline.at),
            site.clock(),
            session.account.id,
            game_id,
        )
    except controls.ControlError as exc:
        return refused(request, session, str(exc))
    return RedirectResponse(f"/games/{new_id}", status_code=303)


async def disqualify_version(request: Request, session: Session, form: FormData) -> Response:
    site = site_of(request)
    version_id = number_field(form, "version")
    reason = field(form, "reason").strip()
    if not reason or len(reason) > MAX_REASON:
        raise HTTPException(400, f"give the reason, in at most {MAX_REASON} characters")
    try:
        await site.store.write(
            controls.disqualify_version, site.clock(), session.account.id, version_id, reason
        )
    except controls.ControlError as exc:
        return refused(request, session, str(exc))
    return RedirectResponse("/staff", status_code=303)


async def accounts_page(request: Request, session: Session) -> Response:
    site = site_of(request)
    lines = await site.store.read(accounts_with_versions)
    return site.render(request, "staff_accounts.html", {"lines": lines}, session=session)


async def _account_of(site: Site, form: FormData) -> Account:
    found = await site.store.read(accounts.by_id, number_field(form, "account"))
    if found is None:
        raise not_found()
    return found


async def set_disabled(request: Request, session: Session, form: FormData) -> Response:
    """Disable an account (its sessions end, its token and invite stop working), or enable it
    again. A staff member cannot shut themselves out."""
    site = site_of(request)
    account = await _account_of(site, form)
    disabled = field(form, "disabled") == "1"
    if disabled and account.id == session.account.id:
        return refused(request, session, "You cannot disable your own account.")
    await site.store.write(
        accounts.set_disabled, account.id, disabled, site.clock(), session.account.id
    )
    return RedirectResponse("/staff/accounts", status_code=303)


async def new_invite(request: Request, session: Session, form: FormData) -> Response:
    """A new invite link for an account (its earlier link stops working), shown this once."""
    site = site_of(request)
    account = await _account_of(site, form)
    if account.disabled:
        return refused(request, session, f"{account.username} is disabled: enable it first.")
    days = site.config.accounts.invite_days
    token = await site.store.write(invite, site.clock(), session.account.id, account, days)
    context = {"account": account, "link": f"{site.config.public_url()}/invite/{token}"}
    return site.render(request, "staff_invite.html", context, session=session)


async def audit_log(request: Request, session: Session) -> Response:
    site = site_of(request)
    found = await site.store.read(audit_page, before_of(request))
    return site.render(request, "staff_audit.html", {"page": found}, session=session)


ROUTES = [
    page("/staff", staff, staff=True),
    action("/staff/switch", set_switch, staff=True),
    action("/staff/rerun", rerun, staff=True),
    action("/staff/disqualify", disqualify_version, staff=True),
    page("/staff/accounts", accounts_page, staff=True),
    action("/staff/accounts/disable", set_disabled, staff=True),
    action("/staff/accounts/invite", new_invite, staff=True),
    page("/staff/audit", audit_log, staff=True),
]
