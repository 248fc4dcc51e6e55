"""The queue: the games running now (each a link to its live view) and those waiting, for
whoever may see games (a student whose arena hides others' games sees their own), and once the
final's versions are pinned, how far the final has got; it refreshes itself while it is open
(static/arena-refresh.js)."""

from __future__ import annotations

import sqlite3

import trio
from starlette.requests import Request
from starlette.responses import Response

from referee.arena.final_progress import final_progress
from referee.arena.finalists import pinned_at
from referee.arena.game_queries import Queue, queue
from referee.arena.sessions import Session
from referee.arena.staff_actions import PAUSED, is_on
from referee.arena.store import snapshot
from referee.arena.visibility import may_see_others_games
from referee.arena.web.site import site_of
from referee.arena.web.viewing import open_page, refuse, viewer_of, with_etag


def queue_now(db: sqlite3.Connection, account: int | None) -> tuple[Queue, bool, str | None]:
    with snapshot(db):
        return queue(db, account), is_on(db, PAUSED), pinned_at(db)


async def queue_page(request: Request, session: Session | None) -> Response:
    site = site_of(request)
    viewer = viewer_of(session)
    if may_see_others_games(site.config.visibility, viewer):
        account = None
    elif viewer is not None:
        account = viewer.id
    else:
        return refuse(request, session)
    found, paused, pinned = await site.store.read(queue_now, account)
    # Once pinned, the final's games are what the machine plays: said here, with its progress.
    final = await trio.to_thread.run_sync(final_progress, site.root) if pinned else None
    context = {
        "queue": found,
        "paused": paused,
        "own_only": account is not None,
        "pinned": pinned,
        "final": final,
    }
    return with_etag(request, site.render(request, "queue.html", context, session=session))


ROUTES = [open_page("/queue", queue_page)]
