"""The leaderboard page: each student's active version with its rating, interval, games, rank
and trend (leaderboard.py), for whoever `[visibility] leaderboard` lets see it; it refreshes
itself (static/arena-refresh.js) while it is open.

The table is the same for every viewer of a role, and the most read part of the arena (every
open leaderboard asks again every 15 seconds): it is rendered once per fit and role and kept
(`TABLES`), and each viewer's page adds only its own line above it."""

from __future__ import annotations

from collections import OrderedDict

from starlette.requests import Request
from starlette.responses import Response

from referee.arena.leaderboard import TREND_HOURS, Standing, standings
from referee.arena.sessions import Session
from referee.arena.visibility import may_see_leaderboard
from referee.arena.web.site import Site, site_of
from referee.arena.web.viewing import open_page, refuse, viewer_of, with_etag

KEPT_TABLES = 8
# (rows, links, min_games) -> the table's HTML, the most recently used last.
TABLES: OrderedDict[tuple[tuple[Standing, ...], bool, int], str] = OrderedDict()


def table(site: Site, rows: tuple[Standing, ...], links: bool) -> str:
    """The table's HTML (rendered with every value escaped; the page includes it as is)."""
    key = (rows, links, site.config.ratings.min_games)
    found = TABLES.get(key)
    if found is None:
        template = site.templates.env.get_template("_leaderboard_table.html")
        context = {"rows": rows, "links": links, "min_games": key[2], "trend_hours": TREND_HOURS}
        found = template.render(context)
        TABLES[key] = found
        while len(TABLES) > KEPT_TABLES:
            TABLES.popitem(last=False)
    TABLES.move_to_end(key)
    return found


async def leaderboard(request: Request, session: Session | None) -> Response:
    site = site_of(request)
    viewer = viewer_of(session)
    if not may_see_leaderboard(site.config.visibility, viewer):
        return refuse(request, session)
    rows = tuple(await site.store.read(standings, site.clock()))
    context = {
        "rows": rows,
        "table": table(site, rows, links=bool(viewer and viewer.is_staff)),
        "mine": next((row for row in rows if viewer and row.account_id == viewer.id), None),
        "min_games": site.config.ratings.min_games,
        "trend_hours": TREND_HOURS,
    }
    return with_etag(request, site.render(request, "leaderboard.html", context, session=session))


ROUTES = [open_page("/leaderboard", leaderboard)]
