"""The leaderboard page: each student's active version with its rating, interval, games, rank
and trend (leaderboard.py), for whoever `[visibility] leaderboard` lets see it; it refreshes
itself (static/arena-refresh.js) while it is open."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from referee.arena.leaderboard import TREND_HOURS, standings
from referee.arena.sessions import Session
from referee.arena.visibility import may_see_leaderboard
from referee.arena.web.site import site_of
from referee.arena.web.viewing import open_page, refuse, viewer_of, with_etag


async def leaderboard(request: Request, session: Session | None) -> Response:
    site = site_of(request)
    if not may_see_leaderboard(site.config.visibility, viewer_of(session)):
        return refuse(request, session)
    rows = await site.store.read(standings, site.clock())
    context = {
        "rows": rows,
        "min_games": site.config.ratings.min_games,
        "trend_hours": TREND_HOURS,
    }
    return with_etag(request, site.render(request, "leaderboard.html", context, session=session))


ROUTES = [open_page("/leaderboard", leaderboard)]
