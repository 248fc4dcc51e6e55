"""Where a process plays its games: the isolation chosen once, the folders hidden, the log.

A run resolves its host once, before its first game (choosing the isolation level probes the
machine), and hands it to every game it plays (referee/match/driver.py); the match never
chooses a level itself, and its record's header names the level chosen.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from referee.isolation.levels import Isolation, IsolationSettings, choose

LOG_NAME = "referee.log"  # a run's log, in its folder: where the referee's own errors go


@dataclass(frozen=True)
class Host:
    """The isolation a run's bots run under (with the folders no bot of the run may see),
    and the run's log (None: stderr alone)."""

    isolation: Isolation
    log: Path | None = None

    def hiding(self, *folders: Path) -> Host:
        """The same host, hiding `folders` from every bot too."""
        return replace(self, isolation=self.isolation.hiding(*folders))


def choose_host(settings: IsolationSettings, *hidden: Path, log: Path | None = None) -> Host:
    """The host of a run: the level `settings` ask for, chosen on this machine, hiding
    `hidden`. Raises `IsolationUnavailable` (a ValueError) with the reason and the fix."""
    return Host(choose(settings).hiding(*hidden), log)


def run_log(folder: Path) -> Path:
    """The log of a run whose records go to `folder`."""
    return folder / LOG_NAME
