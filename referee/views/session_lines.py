"""What a tournament session says on the terminal's error console, told to this observer as
values (`app/tournament_session.py` prints nothing): the refusal that stops it before it
starts, the isolation its bots run under and the games already done, the start checks
(`views/start_checks.py`), the cluster's lines, and the interruption. `terminal_observers` is
what a command that plays a session shows on the terminal."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager

from rich.console import Console

from referee.isolation import Isolation, describe
from referee.tournament.observer import Observer
from referee.tournament.preflight import StartCheck
from referee.views.start_checks import show_start_checks, starting_bots
from referee.views.tournament_live import LiveStandings


class SessionLines(Observer):
    """The lines a session says, on `err`."""

    def __init__(self, err: Console) -> None:
        self.err = err

    def refused(self, message: str, highlight: bool) -> None:
        self.err.print(message, markup=False, highlight=highlight)

    def opened(self, isolation: Isolation | None, done: int, total: int) -> None:
        if isolation is not None:
            self._say(describe(isolation))
        if done:
            self._say(f"resuming: {done}/{total} games done")

    def starting_bots(self, count: int) -> AbstractContextManager[object]:
        return starting_bots(self.err, count)

    def start_checks(self, checks: Sequence[StartCheck], refusal: str | None) -> None:
        show_start_checks(self.err, checks, refusal)

    def connecting(self, address: str) -> AbstractContextManager[object]:
        return self.err.status(f"connecting to the cluster {address}...")

    def said(self, line: str) -> None:
        self._say(line)

    def interrupted(self, finished: int, resume_hint: str) -> None:
        self._say(f"interrupted after {finished} finished games: {resume_hint}")

    def _say(self, line: str) -> None:
        self.err.print(line, markup=False, highlight=False)


def terminal_observers(err: Console, title: str, *, quiet: bool = False) -> list[Observer]:
    """The session's lines on `err`, and its live display (titled `title`) unless `quiet`."""
    shown: list[Observer] = [SessionLines(err)]
    if not quiet:
        shown.append(LiveStandings(err, title))
    return shown
