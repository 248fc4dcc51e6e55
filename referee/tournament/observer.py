"""What watches a tournament session as it plays (`app/tournament_session.py`): the `Observer`
protocol, here below both `app/` (JSON events, the dashboard: `app/observers.py`) and `views/`
(what a terminal shows), so that either may implement it.

An observer sees every event (in the order the observers were given, before the runner asks a
match's `stop_when`); it may also serve something before the bots start (`open`), see each
game's moves (`game_listener`) and redraw from the run's state while the games play (`run`).
It is told, as values, what the session says: how it opened (`opened`: the isolation, the
games already done; or `refused`), what starting each bot once found (`starting_bots`,
`start_checks`), the connection to a cluster (`connecting`), the lines that are none of these
(`said`: the cluster's workers, why the run stopped) and an interruption (`interrupted`).
A class that subclasses `Observer` inherits a default for each that does nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Protocol

import trio

from referee.isolation import Isolation
from referee.match.recorder import Listener
from referee.tournament.events import Event
from referee.tournament.preflight import StartCheck
from referee.tournament.runner import RunState
from referee.tournament.schedule import ScheduledGame


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

    def refused(self, message: str, highlight: bool) -> None:
        """Why the session does not start: the whole line (`highlight`: as rich would colour
        it); nothing else is told."""
        return None

    def opened(self, isolation: Isolation | None, done: int, total: int) -> None:
        """The session is open: the isolation its bots run under (None: on a cluster, whose
        workers choose), and the games already done of those scheduled."""
        return None

    def starting_bots(self, count: int) -> AbstractContextManager[object]:
        """Held while `count` bots start once, before the first game."""
        return nullcontext()

    def start_checks(self, checks: Sequence[StartCheck], refusal: str | None) -> None:
        """What starting each bot once found, and the refusal that stops the run (None: it
        goes on)."""
        return None

    def connecting(self, address: str) -> AbstractContextManager[object]:
        """Held while the session connects to the cluster at `address`."""
        return nullcontext()

    def said(self, line: str) -> None:
        """A whole line the run says: the cluster's workers and bots, why it stopped."""
        return None

    def interrupted(self, finished: int, resume_hint: str) -> None:
        """Ctrl-C ended the run after `finished` games; `resume_hint` says how to go on."""
        return None
