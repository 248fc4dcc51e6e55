"""`referee arena serve`: one trio process serving an arena until it is cancelled (Ctrl-C).

Its caller holds the folder's `serving_lock` (two servers of one arena would schedule every
game twice). It writes its log to DIR/arena.log, serves the web app with the project's
hypercorn-on-trio server (referee/web/listen.py), and runs the arena's background work in the
same nursery (`start_background`): when any task fails, the whole server stops, and Ctrl-C
stops them all.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from functools import partial

import trio
from hypercorn.config import Config

from referee.arena.final_task import final_at_deadline
from referee.arena.folder import Arena
from referee.arena.ladder import LadderSetup, ladder_setup, run_ladder
from referee.arena.sessions import CookieSigner
from referee.arena.submissions import run_worker
from referee.arena.web.app import create_app
from referee.arena.web.site import Site
from referee.web.listen import http_config, serve

log = logging.getLogger("referee.arena")
# Where the server's log comes from: the arena, its matches and the web server (a referee
# error's traceback the match writes to the log itself: `ladder_setup`'s host).
LOGGERS = ("referee.arena", "referee.match", "hypercorn.error")


@dataclass(frozen=True)
class Serving:
    """A running arena server: where it listens, and the address people open."""

    binds: list[str]
    url: str


async def start_background(
    nursery: trio.Nursery, arena: Arena, site: Site, ladder: LadderSetup | None = None
) -> None:
    """The arena's background tasks, started beside the web server in its nursery: the
    submission worker (builds and checks new versions) and the scheduler with its game
    players start here, each as `await nursery.start(...)` so that the server announces it is
    up only once they are. `ladder` says where games are played (None: here, under the
    isolation arena.toml asks for)."""
    await nursery.start(partial(run_worker, arena, clock=site.clock))
    await nursery.start(partial(run_ladder, arena, ladder or ladder_setup(arena), live=site.live))
    # At the deadline: the versions pinned, the final played, the grades worked out.
    await nursery.start(partial(final_at_deadline, arena, site.clock))


def log_to_file(arena: Arena) -> list[logging.Handler]:
    """The arena's log (errors with their tracebacks, and the web server's) in DIR/arena.log;
    errors (a referee error's traceback) on stderr too."""
    handler = logging.FileHandler(arena.paths.log, encoding="utf-8")
    errors = logging.StreamHandler(sys.stderr)
    errors.setLevel(logging.ERROR)
    for each in (handler, errors):
        each.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for name in LOGGERS:
        for each in (handler, errors):
            logging.getLogger(name).addHandler(each)
    logging.getLogger("referee.arena").setLevel(logging.INFO)
    logging.getLogger("hypercorn.error").setLevel(logging.WARNING)
    return [handler, errors]


def web_config(bind: str) -> Config:
    """The web server's settings, its errors (a page's traceback) logged through the
    arena's own `hypercorn.error` logger: left to itself, hypercorn would replace that
    logger's handlers with its own, to stderr alone, and DIR/arena.log would miss them."""
    config = http_config(bind)
    config.errorlog = logging.getLogger("hypercorn.error")
    return config


async def serve_arena(
    arena: Arena,
    *,
    host: str,
    port: int,
    extra_hosts: list[str] | None = None,
    site: Site | None = None,
    ladder: LadderSetup | None = None,
    task_status: trio.TaskStatus[Serving] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve `arena` on host:port until cancelled; `task_status` gets where it listens. The
    caller holds `serving_lock(arena)`. `ladder`: where the games are played (`ladder_setup`;
    None: here)."""
    handlers = log_to_file(arena)
    try:
        site = site or Site(arena.store, arena.config, CookieSigner(arena.secret))
        app = create_app(site, extra_hosts=[host, *(extra_hosts or [])])
        bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(partial(serve, app, web_config(bind)))
            await start_background(nursery, arena, site, ladder)
            log.info("serving %s on %s", arena.paths.root, ", ".join(binds))
            task_status.started(Serving(binds, arena.config.public_url()))
    finally:
        for name in LOGGERS:
            for handler in handlers:
                logging.getLogger(name).removeHandler(handler)
        for handler in handlers:
            handler.close()
