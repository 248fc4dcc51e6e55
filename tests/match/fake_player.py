"""An in-memory player for match tests: a bot written as a small async program on trio's clock.

The program talks through a `BotEnd` (`hear`, `say`) as a bot talks through its pipes, and waits
with `trio.sleep`, so under `autojump_clock` a test of time control is exact and instant. The
`FakePlayer` is the referee's end and keeps `BotProcess`'s rules: a line is the answer only
while the player is asked and has not answered yet; any other line is output out of turn, kept
for the match to judge, and reported through `on_fault` at once if the player was idle. A
program that returns has closed its output: a crash with that exit code, as for a process. At
the end the referee's input is closed (`hear` returns ""), the program gets the exit grace to
return, and is otherwise killed.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager

import trio

from protocols.base import Reason
from referee.bot import BotExit, BotFault, BotStartError, describe_returncode, unwrap_single
from referee.isolation.levels import Isolation
from referee.match import FaultCallback, MatchSettings, PlayerSpec

KILLED = -9  # the exit code of a program still running at the end: killed by SIGKILL

# A bot's program: returns its exit code (None: 0).
Program = Callable[["BotEnd"], Awaitable[int | None]]


class BotEnd:
    """What a program sees: its input lines and its output."""

    def __init__(self, player: FakePlayer, inbox: trio.MemoryReceiveChannel[str]) -> None:
        self._player = player
        self._inbox = inbox

    async def hear(self) -> str:
        """The next line from the referee; "" once the referee closed the input (as readline)."""
        try:
            return await self._inbox.receive()
        except trio.EndOfChannel:
            return ""

    def say(self, line: str) -> None:
        """Write one line (it arrives at once: the referee reads it at this very time)."""
        self._player.arrived(line)


class FakePlayer:
    """The referee's end of an in-memory player; satisfies `referee.match.Player`."""

    def __init__(self, name: str, on_fault: FaultCallback | None = None) -> None:
        self.name = name
        self.on_fault = on_fault
        self.fault: BotFault | None = None
        self.exit: BotExit | None = None
        self.last_cpu_ms: float | None = None
        self.isolation_level: str | None = None  # no confinement at all
        self.isolation_note: str | None = None
        self.heard: list[str] = []  # every line the referee wrote to it, in order
        self.unasked: list[str] = []  # lines it wrote when not asked, as BotProcess keeps them
        self._outbox, self._inbox = trio.open_memory_channel[str](math.inf)
        self._returncode: int | None = None
        self._ended = trio.Event()
        self._closing = False
        self._asked = False
        self._reply: str | None = None
        self._reply_event = trio.Event()
        self._ask_scope: trio.CancelScope | None = None
        self._interrupted = False

    # -- the referee's side (the `Player` protocol) ---------------------------------------------

    async def send_line(self, line: str) -> None:
        self._raise_fault()
        self._write(line)

    async def notify(self, line: str, timeout: float) -> bool:
        if self._returncode is not None or self._closing:
            return False
        self._outbox.send_nowait(line)
        self.heard.append(line)
        return True

    async def ask(
        self, line: str | None, deadline: float, then: Callable[[], None] | None = None
    ) -> str | None:
        self._raise_fault()
        self._asked, self._reply, self._interrupted = True, None, False
        self._reply_event = trio.Event()
        try:
            with trio.move_on_at(deadline) as scope:
                self._ask_scope = scope
                if line is not None:
                    self._write(line)
                if then is not None:
                    then()
                await self._reply_event.wait()
            if self._reply is not None:
                return self._reply  # a fault right after it stays in `fault`
            self._raise_fault()
            if self._interrupted:
                return None
            raise BotFault(Reason.TIMEOUT, "no complete line within the time limit")
        finally:
            self._asked, self._ask_scope = False, None

    def interrupt(self) -> None:
        if self._ask_scope is not None:
            self._interrupted = True
            self._ask_scope.cancel()

    # -- the program's side -----------------------------------------------------------------------

    def arrived(self, line: str) -> None:
        """A line the program wrote, judged the moment it arrives."""
        if self._asked and self._reply is None and not self._closing:
            self._reply = line
            self._reply_event.set()
            return
        self.unasked.append(line)
        if not self._closing:
            self._set_fault(
                BotFault(Reason.OUT_OF_TURN, "wrote a line when it was not its turn", line)
            )

    async def run(self, program: Program) -> None:
        code = await program(BotEnd(self, self._inbox))
        self._returncode = code or 0
        self._ended.set()
        self._set_fault(
            BotFault(Reason.CRASH, f"closed its output: {describe_returncode(self._returncode)}")
        )

    async def close(self, grace: float, program_scope: trio.CancelScope) -> BotExit:
        """End of the match: close its input, give it `grace` seconds to return, then kill it."""
        self._closing = True
        with trio.CancelScope(shield=True):
            self._outbox.close()
            with trio.move_on_after(grace):
                await self._ended.wait()
        killed = self._returncode is None
        program_scope.cancel()
        code = KILLED if killed else self._returncode
        self.exit = BotExit(code, killed, "", 0, tuple(self.unasked))
        return self.exit

    # -- as `BotProcess` does ----------------------------------------------------------------------

    def _write(self, line: str) -> None:
        if self._returncode is not None:
            what = f"stopped reading its input: {describe_returncode(self._returncode)}"
            self._set_fault(BotFault(Reason.CRASH, what))
            self._raise_fault()
        self._outbox.send_nowait(line)
        self.heard.append(line)

    def _raise_fault(self) -> None:
        if self.fault is not None:
            raise self.fault

    def _set_fault(self, fault: BotFault) -> None:
        if self.fault is not None or self._closing:
            return
        self.fault = fault
        if self._asked:
            self._reply_event.set()
        elif self.on_fault is not None:
            self.on_fault(self)


class FakePlayers:
    """An `OpenPlayer` for `Match`: each player, found by its name, runs its program in memory."""

    def __init__(
        self,
        programs: Mapping[str, Program],
        start_delay: float = 0.0,
        unstartable: Mapping[str, str] | None = None,
    ) -> None:
        self.programs = dict(programs)
        self.opened: dict[str, FakePlayer] = {}
        self.start_delay = start_delay  # how long opening a player takes (a program starting)
        # Players whose program cannot be started at all (a folder, a missing file), by name:
        # opening them raises `BotStartError` with this detail, as `open_bot` does.
        self.unstartable = dict(unstartable or {})

    @asynccontextmanager
    async def __call__(
        self,
        player: PlayerSpec,
        opponent: PlayerSpec,
        settings: MatchSettings,
        isolation: Isolation,
        on_fault: FaultCallback,
    ) -> AsyncIterator[FakePlayer]:
        await trio.sleep(self.start_delay)
        if player.name in self.unstartable:
            raise BotStartError(self.unstartable[player.name])
        fake = self.opened[player.name] = FakePlayer(player.name, on_fault)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(fake.run, self.programs[player.name])
                try:
                    yield fake
                finally:
                    cancelled = trio.current_effective_deadline() == -math.inf
                    await fake.close(0 if cancelled else settings.exit_grace, nursery.cancel_scope)
        except BaseExceptionGroup as group:
            # As `open_bot`: what the match's block raised comes out as itself, not wrapped.
            raise unwrap_single(group) from None


# -- programs ---------------------------------------------------------------------------------


def plays(moves: Sequence[str], delays: Sequence[float] = (), *, hang: bool = False) -> Program:
    """Plays `moves` in turn, the n-th after `delays[n]` seconds (none past the list), leaving at
    `END`. Out of moves it never answers: it keeps reading, or with `hang` stops reading at all.
    """

    async def program(bot: BotEnd) -> int:
        line = await bot.hear()
        if line == "orange":
            line = await bot.hear()  # blue moves first
        for number, move in enumerate(moves):
            if line in ("END", ""):
                return 0
            await trio.sleep(delays[number] if number < len(delays) else 0.0)
            bot.say(move)
            line = await bot.hear()
        if hang:
            await trio.sleep_forever()
        while line not in ("END", ""):
            line = await bot.hear()
        return 0

    return program
