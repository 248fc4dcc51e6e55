"""What watches a tournament session as it plays (`app/tournament_session.py`): the `Observer`
protocol, and the observers a command passes in: the live display of the standings, JSON lines
of events on a stream the command gives, and the live web dashboard.

An observer sees every event (in the order the observers were given, before the runner asks a
match's `stop_when`); it may also serve something before the bots start (`open`), see each
game's moves (`game_listener`) and redraw from the run's state while the games play (`run`).
A class that subclasses `Observer` inherits a default for each that does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol

import trio
from rich.console import Console

from referee.match.recorder import Listener
from referee.tournament.config import LoadedConfig
from referee.tournament.events import Event
from referee.tournament.runner import RunState
from referee.tournament.schedule import ScheduledGame
from referee.views.tournament_live import LiveDisplay

if TYPE_CHECKING:
    from referee.web.tournaments import TournamentWatch


class Observer(Protocol):
    """Watches one run of a tournament session."""

    async def open(self, nursery: trio.Nursery) -> None:
        """Before the bots start, with the run's nursery (the dashboard is served from here)."""
        return None

    def game_listener(self, game: ScheduledGame, record: Path) -> Listener | None:
        """What also hears each line of `game` as it is played (its record written at
        `record`); None: nothing."""
        return None

    def on_event(self, event: Event) -> None:
        """Each event of the run, as it happens."""
        return None

    async def run(self, state: RunState) -> None:
        """While the games play (cancelled when they end): e.g. redraw from `state`."""
        return None


class JsonEvents(Observer):
    """`--events`: each event as one JSON line on `stream`, flushed at once."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def on_event(self, event: Event) -> None:
        self.stream.write(event.model_dump_json() + "\n")
        self.stream.flush()


class LiveStandings(Observer):
    """The live display of the run on `console` (`views/tournament_live.py`)."""

    def __init__(self, console: Console, title: str) -> None:
        self.console = console
        self.title = title

    async def run(self, state: RunState) -> None:
        await LiveDisplay(self.console, state, self.title).run()


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
    err: Console,
    loaded: LoadedConfig,
    *,
    quiet: bool = False,
    events: IO[str] | None = None,
    web: WebView | None = None,
) -> list[Observer]:
    """What `tournament run` and `demo` watch a run with: JSON events on `events` if given,
    the dashboard with `web`, and the live display on `err` unless `quiet`."""
    observers: list[Observer] = []
    if events is not None:
        observers.append(JsonEvents(events))
    if web is not None:
        observers.append(Dashboard(loaded.directory, web))
    if not quiet:
        observers.append(LiveStandings(err, loaded.config.name))
    return observers
