"""A student's page (their own; staff see anyone's): their versions with status and links to
each version's page, their rating history as a chart, their games a page at a time; and the
page of the games they lost, each with its final position and their own bot's stderr tail.

The viewer's right is checked before anything is read: another student's id is the same 404
as an id that names nobody.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trio
from starlette.requests import Request
from starlette.responses import Response

from protocols.base import Side
from protocols.drawing import Picture
from referee.arena.finalists import pinned_at
from referee.arena.game_files import record_file, replay_of
from referee.arena.game_queries import GameView, losses_of
from referee.arena.paging import Page
from referee.arena.pictures import picture
from referee.arena.rating_chart import chart
from referee.arena.rows import Account
from referee.arena.sessions import Session
from referee.arena.student_page import student_account, student_page
from referee.arena.web.guards import not_found, page
from referee.arena.web.site import site_of
from referee.arena.web.viewing import before_of, path_id
from referee.records import BotReport

LOSSES_PER_PAGE = 10


def _allowed(session: Session, account_id: int) -> None:
    if not (session.account.is_staff or session.account.id == account_id):
        raise not_found()


async def student(request: Request, session: Session) -> Response:
    site = site_of(request)
    account_id = path_id(request)
    _allowed(session, account_id)
    found = await site.store.read(student_page, account_id, before_of(request))
    if found is None:
        raise not_found()
    pinned = await site.store.read(pinned_at) if session.account.is_staff else None
    context = {"student": found, "chart": chart(found.history), "pinned": pinned}
    return site.render(request, "student.html", context, session=session)


@dataclass(frozen=True)
class Loss:
    """A game the student lost, as the losses page shows it."""

    view: GameView
    side: Side  # the side that lost (the student's)
    picture: Picture | None  # the final position; None if the record cannot be read
    report: BotReport | None  # how the student's bot ended, with its stderr tail


def loss(root: Path, view: GameView, account: Account) -> Loss:
    """One loss, its record read and replayed (from the cache when it has not changed).
    Blocking: `losses` calls it in a worker thread."""
    winner = view.game.winner
    side = Side(winner).other if winner else view.side_of(account.id) or Side.BLUE
    path = record_file(root, view.game.record)
    replay = None if path is None else replay_of(path)
    if replay is None or not replay.frames:
        return Loss(view, side, None, None)
    report = replay.result.bots.get(side) if replay.result is not None else None
    return Loss(view, side, picture(replay.game, replay.frames[-1]), report)


async def losses(request: Request, session: Session) -> Response:
    site = site_of(request)
    account_id = path_id(request)
    _allowed(session, account_id)
    before = before_of(request)
    account = await site.store.read(student_account, account_id)
    if account is None:
        raise not_found()
    found: Page[GameView] = await site.store.read(losses_of, account_id, before, LOSSES_PER_PAGE)
    # One worker thread for the page's records, not one each: the files are read and the
    # games replayed away from the event loop, at the cost of a single hand-over.
    shown = await trio.to_thread.run_sync(
        lambda: [loss(site.root, view, account) for view in found.items]
    )
    context = {"student": account, "losses": shown, "page": found}
    return site.render(request, "losses.html", context, session=session)


ROUTES = [
    page("/students/{id:int}", student),
    page("/students/{id:int}/losses", losses),
]
