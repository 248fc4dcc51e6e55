"""The seam between a match and its players: what the driver needs of a player, and the real one.

Declared here, by its only user, rather than in referee/bot.py: the protocol is the match's view
of a player, and `BotProcess` satisfies it structurally without knowing about it. Tests put an
in-memory player behind it (tests/match/fake_player.py, on the same `Exchange`) to check time
control on a virtual clock.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol

from referee.bot import BotExit, BotProcess, open_bot
from referee.exchange import BotFault, PlayerEvents
from referee.isolation.confinement import player_places
from referee.isolation.levels import Isolation
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec, is_builtin, player_cwd


class Player(Protocol):
    """One side of a match: lines out, and its answers and faults reported to the events it
    was opened with; how it ended."""

    @property
    def fault(self) -> BotFault | None:
        """What it did wrong so far, kept until the match judges it."""

    @property
    def last_cpu_ms(self) -> float | None:
        """CPU time of its last answer, where measured."""

    @property
    def exit(self) -> BotExit | None:
        """How it ended; set once it is closed."""

    @property
    def isolation_level(self) -> str | None:
        """The isolation level it actually ran under, for the record."""

    @property
    def isolation_note(self) -> str | None:
        """Why it ran below the level asked for, where it did (the cause, named)."""

    async def prompt(self, line: str) -> None:
        """Write `line`, which it answers (through its events); raises its fault."""

    async def send_line(self, line: str) -> None:
        """Write a line it does not answer (its colour); raises its fault."""

    async def notify(self, line: str, timeout: float) -> bool:
        """Best-effort write at the end of a game; whether the line was written."""

    def timeout_fault(self) -> BotFault:
        """Its fault when it did not answer in time (what its process shows)."""

    def stop_waiting(self) -> None:
        """It is not waited for any more (the game ended with the move it was asked): what it
        writes now is out of turn, kept and not judged."""


class OpenPlayer(Protocol):
    """Opens one side for a match: `(player, opponent, settings, isolation, events)`.

    Raises `BotStartError` (the player's fault) or `BotInfrastructureError` (void) on entry.
    """

    def __call__(
        self,
        player: PlayerSpec,
        opponent: PlayerSpec,
        settings: MatchSettings,
        isolation: Isolation,
        events: PlayerEvents,
        /,
    ) -> AbstractAsyncContextManager[Player]: ...


def open_bot_player(
    player: PlayerSpec,
    opponent: PlayerSpec,
    settings: MatchSettings,
    isolation: Isolation,
    events: PlayerEvents | None,
) -> AbstractAsyncContextManager[BotProcess]:
    """The real player: its program in a confined process, hidden from the opponent's files.
    Without `events` it is asked one line at a time (`BotProcess.ask`: a trial start)."""
    return open_bot(
        player.command,
        name=player.name,
        cwd=player_cwd(player),
        max_line_bytes=settings.max_line_bytes,
        exit_grace=settings.exit_grace,
        events=events,
        limits=player.limits or settings.limits,
        # Among the opponent's places (what its command names), which this bot never sees.
        isolation=isolation
        if is_builtin(opponent.command)
        else isolation.among(player_places(opponent.command, player_cwd(opponent))),
        freeze=settings.freeze,
        freeze_grace=settings.freeze_grace,
    )
