"""Play one game with its live web view (`referee play --visual`), then keep the view up, idle.

The server and the game share one trio run. Ctrl-C (or SIGTERM) is received as a message, not
an exception: during the game it cancels the game, which records it as interrupted;
after the game it just stops the server. Waiting for it costs nothing: no task wakes up.
"""

from __future__ import annotations

import os
import sys
import webbrowser
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.match.recorder import Listener
from referee.records import GameRecord
from referee.web.server import WebServer, start_web_server, wait_for_interrupt

VIEWER_WAIT = 15.0  # seconds a game waits for the page a browser was asked to open


@dataclass
class Watched:
    """How a watched game went: its record (None if interrupted before it ended)."""

    record: GameRecord | None = None
    interrupted: bool = False


def graphical_session() -> bool:
    """Whether a browser window could open here (and the user has not turned it off)."""
    if os.environ.get("REFEREE_NO_BROWSER"):
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


async def play_watched(
    play: Callable[[Listener], Awaitable[GameRecord]],
    *,
    record: Path | None,
    port: int,
    host: str,
    folders: list[Path],
    title: str,
    on_url: Callable[[str], None],
    on_finished: Callable[[GameRecord], None],
) -> Watched:
    """Serve, `play` the game (its lines told to the live view's listener; its record written
    to `record`), report it, then serve until interrupted."""
    watched = Watched()
    async with trio.open_nursery() as nursery:
        server: WebServer = await start_web_server(nursery, folders, port, host=host)
        live = server.hub.open_match(title=title, match_id="match", record=record)
        url = server.live_url(live.id)
        on_url(url)
        interrupted = trio.Event()

        async def stop_on_interrupt() -> None:
            await wait_for_interrupt()
            interrupted.set()
            nursery.cancel_scope.cancel()

        nursery.start_soon(stop_on_interrupt)
        if graphical_session() and await trio.to_thread.run_sync(webbrowser.open, url):
            with trio.move_on_after(VIEWER_WAIT):
                await live.watched.wait()
        watched.record = await play(live.listener)
        on_finished(watched.record)
        await trio.sleep_forever()
    watched.interrupted = watched.record is None and interrupted.is_set()
    return watched
