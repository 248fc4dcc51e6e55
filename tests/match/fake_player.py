"""An in-memory player for match tests: a bot written as a small async program on trio's clock.

The program talks through a `BotEnd` (`hear`, `say`) as a bot talks through its pipes, and waits
with `trio.sleep`, so under `autojump_clock` a test of time control is exact and instant. The
`FakePlayer` is the referee's end: what the program says is fed, as bytes, to the same
`Exchange` a bot process feeds (so a line is judged the answer, or out of turn, by the very same
rules), and what that finds is reported to the match's events. A program that returns has closed
its output: a crash with that exit code, as for a process. At the end the referee's input is
closed (`hear` returns ""), the program gets the exit grace to return, and is otherwise killed.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager

import trio

from protocols.base import Reason
from referee.bot import BotExit, BotStartError, describe_returncode, unwrap_single
from referee.exchange import Answer, BotFault, Closed, Exchange, Heard, PlayerEvents
from referee.isolation.levels import Isolation
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec

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
        """Write one line (the referee reads it at this very time)."""
        self._player.said(line)


class FakePlayer:
    """The referee's end of an in-memory player; satisfies `referee.match.player.Player`."""

    def __init__(self, name: str, events: PlayerEvents, max_line_bytes: int = 4096) -> None:
        self.name = name
        self.events = events
        self.exchange = Exchange(max_line_bytes)
        self.exit: BotExit | None = None
        self.last_cpu_ms: float | None = None
        self.isolation_level: str | None = None  # no confinement at all
        self.isolation_note: str | None = None
        self.heard: list[str] = []  # every line the referee wrote to it, in order
        self._outbox, self._inbox = trio.open_memory_channel[str](math.inf)
        # Its output, as a pipe: what it said, read by `read_output` in order.
        self._pipe_in, self._pipe_out = trio.open_memory_channel[bytes](math.inf)
        self._said = 0  # bytes it has written
        self._read = 0  # bytes the referee's end has read
        self._returncode: int | None = None
        self._ended = trio.Event()

    @property
    def fault(self) -> BotFault | None:
        return self.exchange.fault

    @property
    def unasked(self) -> list[str]:
        return self.exchange.unasked

    # -- the referee's side (the `Player` protocol) ---------------------------------------------

    async def send_line(self, line: str) -> None:
        self._raise_fault()
        self._write(line)

    async def prompt(self, line: str) -> None:
        self._raise_fault()
        self.exchange.ask(unread=self._said - self._read)
        self._write(line)

    async def notify(self, line: str, timeout: float) -> bool:
        if self._returncode is not None or self.exchange.closing:
            return False
        self._outbox.send_nowait(line)
        self.heard.append(line)
        return True

    def timeout_fault(self) -> BotFault:
        return BotFault(Reason.TIMEOUT, "no complete line within the time limit")

    def stop_waiting(self) -> None:
        self.exchange.stop_waiting()

    # -- the program's side -----------------------------------------------------------------------

    def said(self, line: str) -> None:
        data = line.encode() + b"\n"
        self._said += len(data)
        self._pipe_in.send_nowait(data)

    async def run(self, program: Program) -> None:
        code = await program(BotEnd(self, self._inbox))
        self._returncode = code or 0
        self._ended.set()
        self._pipe_in.close()  # its output ends with it

    async def read_output(self) -> None:
        """The referee's reader, as a bot process's: each read takes all the program has said
        by then (as from a pipe), feeds it to the exchange and reports what it found."""
        async for data in self._pipe_out:
            chunk = bytearray(data)
            while True:
                try:
                    chunk += self._pipe_out.receive_nowait()
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
            self._read += len(chunk)
            await self._report(self.exchange.feed(chunk))
        await self._report(self.exchange.feed_eof())

    async def _report(self, heard: list[Heard]) -> None:
        answer: str | None = None
        faulted = False
        for item in heard:
            if isinstance(item, Answer):
                answer = item.text
            elif isinstance(item, Closed):
                what = f"{item.what}: {describe_returncode(self._returncode or 0)}"
                faulted = self.exchange.found(BotFault(Reason.CRASH, what)) or faulted
            else:
                faulted = True
        if answer is not None:
            await self.events.answered(self, answer)
        elif faulted:
            self.events.faulted(self)

    async def close(self, grace: float, program_scope: trio.CancelScope) -> BotExit:
        """End of the match: close its input, give it `grace` seconds to return, then kill it."""
        self.exchange.close()
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
            self.exchange.found(BotFault(Reason.CRASH, what))
            self._raise_fault()
        self._outbox.send_nowait(line)
        self.heard.append(line)

    def _raise_fault(self) -> None:
        if self.fault is not None:
            raise self.fault


class FakePlayers:
    """An `OpenPlayer` for a game: each player, found by its name, runs its program in memory."""

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
        events: PlayerEvents | None,
    ) -> AsyncIterator[FakePlayer]:
        assert events is not None
        await trio.sleep(self.start_delay)
        if player.name in self.unstartable:
            raise BotStartError(self.unstartable[player.name])
        fake = self.opened[player.name] = FakePlayer(player.name, events, settings.max_line_bytes)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(fake.run, self.programs[player.name])
                nursery.start_soon(fake.read_output)
                try:
                    yield fake
                finally:
                    cancelled = trio.current_effective_deadline() == -math.inf
                    await fake.close(0 if cancelled else settings.exit_grace, nursery.cancel_scope)
        except BaseExceptionGroup as group:
            # As `open_bot`: what the game's block raised comes out as itself, not wrapped.
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
