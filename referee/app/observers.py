"""The observers of `app/` that a command passes to a tournament session
(`app/tournament_session.py`; the protocol is `tournament/observer.py`): JSON lines of events on
a stream the command gives, and the live web dashboard. What a terminal shows (the start checks,
the cluster's lines, the live standings) are observers of `views/` that the command adds; the
session prints nothing itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

import trio

from referee.match.recorder import Listener
from referee.tournament.config import LoadedConfig
from referee.tournament.events import Event
from referee.tournament.observer import Observer
from referee.tournament.schedule import ScheduledGame

if TYPE_CHECKING:
    from referee.web.tournaments import TournamentWatch

__all__ = ["Dashboard", "JsonEvents", "Observer", "WebView", "tournament_observers"]


class JsonEvents(Observer):
    """`--events`: each event as one JSON line on `stream`, flushed at once."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def on_event(self, event: Event) -> None:
        self.stream.write(event.model_dump_json() + "\n")
        self.stream.flush()


@dataclass(frozen=True)
class WebView:
    """Where `tournament run --web` serves the live dashboard."""

    host: str
    port: int


class Dashboard(Observer):
    """The web view of the tournament's folder, served while it runs; each game is a live game
    of its hub, and dashboards are told when a game starts or ends."""

    def __init__(self, directory: Path, web: WebView) -> None:
        self.directory = directory
        self.web = web
        self._watch: TournamentWatch | None = None

    async def open(self, nursery: trio.Nursery) -> None:
        # Deferred: the web stack (starlette, hypercorn) loads only for runs that serve it.
        from referee.web.server import start_web_server
        from referee.web.tournaments import TournamentWatch

        web = self.web
        server = await start_web_server(nursery, [self.directory], web.port, host=web.host)
        self._watch = TournamentWatch(server.hub)

    def game_listener(self, game: ScheduledGame, record: Path) -> Listener | None:
        return None if self._watch is None else self._watch.game_listener(game, record)

    def on_event(self, event: Event) -> None:
        if self._watch is not None:
            self._watch.on_event(event)


def tournament_observers(
    loaded: LoadedConfig, *, events: IO[str] | None = None, web: WebView | None = None
) -> list[Observer]:
    """What `tournament run` and `demo` watch a run with, beside the terminal's observers
    (`views/session_lines.py`): JSON events on `events` if given, the dashboard with `web`."""
    observers: list[Observer] = []
    if events is not None:
        observers.append(JsonEvents(events))
    if web is not None:
        observers.append(Dashboard(loaded.directory, web))
    return observers
