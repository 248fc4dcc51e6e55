"""Both players of a game, opened at once and held open until the game is over.

Opening a player is mostly waiting for its program to be executed, so both are opened together,
each in a task of its own (a player's context is left by the task that entered it). A player
that could not be started is a verdict: the machine failing voids the game, whoever else failed;
a bot that could not be started cannot win, so when the other also failed before any move (could
not start either, died at once, wrote out of turn) it is one verdict with no winner.
"""

from __future__ import annotations

import trio

from protocols.base import Reason, Side
from referee.bot import BotInfrastructureError, BotStartError
from referee.exchange import BotFault, PlayerEvents
from referee.isolation.levels import Isolation
from referee.match.judge import Verdict, neither_started, never_started
from referee.match.player import OpenPlayer, Player
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec

OpenFailure = BotStartError | BotInfrastructureError
# Which of two failing programs the referee notices first is chance: before any move, the other
# bot has this long (seconds) for its own failure to show.
START_FAILURE_WAIT = 1.0
FAULT_POLL = 0.01  # seconds between looks at a player's fault, waiting for one


class Seats:
    """The two players of one game, by colour (and by identity, for their events)."""

    def __init__(
        self,
        colours: dict[Side, PlayerSpec],
        settings: MatchSettings,
        isolation: Isolation,
        open_player: OpenPlayer,
    ) -> None:
        self.colours = colours
        self.settings = settings
        self.isolation = isolation
        self.open_player = open_player
        self.players: dict[Side, Player] = {}
        self._sides: dict[int, Side] = {}  # id of a player -> its side
        self._over = trio.Event()  # the players' tasks close them when it is set

    def side_of(self, player: Player) -> Side:
        return self._sides[id(player)]

    async def open(self, nursery: trio.Nursery, events: PlayerEvents) -> Verdict | None:
        """Open both players in `nursery`, reporting to `events`; a verdict if either could
        not start."""
        failures: dict[Side, OpenFailure] = {}
        opened = {side: trio.Event() for side in Side}
        for side in Side:
            nursery.start_soon(self._hold, side, events, opened[side], failures)
        for event in opened.values():
            await event.wait()
        for side in Side:  # the machine failing us voids the game, whoever else failed
            if isinstance(failure := failures.get(side), BotInfrastructureError):
                return Verdict(None, Reason.INFRASTRUCTURE, f"{side}: {failure.detail}")
        failed = [(side, e) for side in Side if isinstance(e := failures.get(side), BotStartError)]
        if len(failed) == 2:
            return neither_started(dict(failed))
        if failed:
            # The other was started, but a program that dies at once (a script that is not
            # there) or fails before it is asked (a line out of turn) never started playing
            # either, and a bot that never started cannot win: it is given a moment to show it.
            side, exc = failed[0]
            theirs = await self.fault_of(side.other, START_FAILURE_WAIT)
            if theirs is not None and never_started({side: exc, side.other: theirs}):
                return neither_started({side: exc, side.other: theirs})
            return Verdict(side.other, Reason.CRASH, f"{side}: {exc.detail}")
        return None

    async def fault_of(self, side: Side, wait: float) -> BotFault | None:
        """`side`'s fault, given `wait` seconds to show if it has none yet."""
        player = self.players[side]
        with trio.move_on_after(wait):
            while player.fault is None:
                await trio.sleep(FAULT_POLL)
        return player.fault

    def close(self) -> None:
        """The game is over: both players close, at once."""
        self._over.set()

    async def _hold(
        self,
        side: Side,
        events: PlayerEvents,
        opened: trio.Event,
        failures: dict[Side, OpenFailure],
    ) -> None:
        player, opponent = self.colours[side], self.colours[side.other]
        try:
            async with self.open_player(
                player, opponent, self.settings, self.isolation, events
            ) as bot:
                self.players[side] = bot
                self._sides[id(bot)] = side
                opened.set()
                await self._over.wait()
        except (BotStartError, BotInfrastructureError) as exc:
            failures[side] = exc
        finally:
            opened.set()
