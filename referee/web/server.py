"""Run the web view inside a trio program: hypercorn's trio server with the starlette app
(connections as `listen.py` bounds them).

`start_web_server(nursery, folders, port=...)` starts it in a nursery the caller owns (a match, a
tournament) and returns once it listens; it stops when that nursery is cancelled. Port 0 picks a
free port; the returned `WebServer.url` says which.
"""

from __future__ import annotations

import logging
import signal
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import trio

from referee.web import DEFAULT_HOST, DEFAULT_PORT, check_address
from referee.web.app import LOCAL_HOSTS, create_app
from referee.web.archive import Archive
from referee.web.listen import http_config, serve
from referee.web.live import LiveHub


@dataclass(frozen=True)
class WebServer:
    """A running web view: where it listens and the hub its live games go to."""

    url: str
    hub: LiveHub
    archive: Archive

    def live_url(self, match_id: str) -> str:
        return f"{self.url}/live/{match_id}"


class WebServerError(OSError):
    """The server could not start (e.g. the port is taken); the message says so plainly."""


async def run_web_server(
    folders: list[Path],
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    hub: LiveHub | None = None,
    task_status: trio.TaskStatus[WebServer] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until cancelled; `task_status.started` gets the `WebServer` once it listens."""
    hub = hub or LiveHub()
    archive = Archive.of(folders)
    hosts = sorted({*LOCAL_HOSTS, host})
    app = create_app(archive, hub, allowed_hosts=["*"] if host in ("0.0.0.0", "::") else hosts)
    logging.getLogger("hypercorn.error").setLevel(logging.WARNING)
    check_can_bind(host, port)
    try:
        async with trio.open_nursery() as nursery:
            bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            binds = await nursery.start(partial(serve, app, http_config(bind)))
            task_status.started(WebServer(url=binds[0], hub=hub, archive=archive))
    finally:
        hub.close()


def check_can_bind(host: str, port: int) -> None:
    """Fail early, with a plain message, when the address is taken or not ours."""
    try:
        check_address(host, port)
    except ValueError as exc:
        raise WebServerError(str(exc)) from None


async def start_web_server(
    nursery: trio.Nursery,
    folders: list[Path],
    port: int = DEFAULT_PORT,
    *,
    host: str = DEFAULT_HOST,
    hub: LiveHub | None = None,
) -> WebServer:
    """Start the web view in `nursery` and return once it listens."""
    server: WebServer = await nursery.start(
        partial(run_web_server, folders, host=host, port=port, hub=hub)
    )
    return server


async def wait_for_interrupt() -> None:
    """Return on Ctrl-C or SIGTERM (instead of an exception that could strike anywhere)."""
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            return
