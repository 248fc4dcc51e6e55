"""A game worker of the arena: a process that plays the ladder's games for `referee arena
serve` (play_pool.py starts them: `python -m referee.arena.play_worker`), so that the server's
own event loop only commits results and serves pages.

It runs at a lower CPU priority than the server (`NICE`, inherited by the bots it starts): on a
saturated machine the kernel serves the pages first. It speaks the messages of
play_messages.py, a JSON object a line: its setup on standard input first (the host the server
chose: the same isolation, the arena's folder hidden from every bot, the arena's log), then
games to play and to stop; on standard output, each game's record lines as they are written,
that it is decided, and its end. It plays several games at once (one's bots close while the
next one starts), each with the one play function (`driver.play`) and a lag monitor of this
process, so a timeout this worker's own lateness caused voids the game, as in any referee.

The server's end of the pipe closes when it stops or dies (`kill -9` too): the worker then
stops every game it is playing (their bots closed; their supervisors would kill them anyway)
and exits, writing nothing more. It is in a session of its own, so Ctrl-C in the server's
terminal reaches the server alone, which stops the games itself.
"""

from __future__ import annotations

import os
import signal
import sys
from contextlib import suppress

import trio
from pydantic import ValidationError

from protocols.framing import Line, LineFramer
from referee.arena.play_messages import (
    CHUNK,
    MAX_MESSAGE,
    TO_WORKER,
    Decided,
    Ended,
    Play,
    Ready,
    Setup,
    Stop,
    record_line,
)
from referee.isolation import IsolationUnavailable
from referee.match import driver
from referee.match.errors import report_referee_error
from referee.match.host import Host, choose_host
from referee.match.lag import LagMonitor
from referee.records import Header, Ply, Result

NICE = 10  # added to the server's niceness: the conventional priority of background work


class Outbox:
    """Messages to the server, sent in order by one task; a match's listener cannot wait, so
    each is queued at once. Once the server is gone, nothing more is sent."""

    def __init__(self, stream: trio.abc.SendStream) -> None:
        self._stream = stream
        self._queued: list[bytes] = []
        self._wake = trio.Event()
        self.gone = False

    def send(self, message: bytes) -> None:
        if not self.gone:
            self._queued.append(message)
            self._wake.set()

    async def run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            data, self._queued = b"".join(self._queued), []
            try:
                await self._stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.gone = True  # the server stopped or died: its games go unheard
                return


class Incoming:
    """The server's messages, one at a time, until its end of the pipe closes (or it sends
    what no server sends: then as if it had closed)."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self._stream = stream
        self._framer = LineFramer(MAX_MESSAGE)
        self._ready: list[Setup | Play | Stop] = []
        self._over = False

    async def next(self) -> Setup | Play | Stop | None:
        while not self._ready and not self._over:
            chunk = await self._stream.receive_some(CHUNK)
            for event in self._framer.feed(chunk) if chunk else self._framer.feed_eof():
                try:
                    if not isinstance(event, Line):
                        raise ValueError(event)
                    self._ready.append(TO_WORKER.validate_json(event.text))
                except (ValueError, ValidationError):
                    self._over = True
                    break
        return self._ready.pop(0) if self._ready else None


class Worker:
    """The games this process plays, on the host of its setup."""

    def __init__(self, host: Host, outbox: Outbox) -> None:
        self.host = host
        self.outbox = outbox
        self.lag = LagMonitor()
        self.games: dict[int, trio.CancelScope] = {}

    async def play(self, job: Play) -> None:
        def listener(line: Header | Ply | Result) -> None:
            self.outbox.send(record_line(job.id, line))

        def decided() -> None:
            self.outbox.send(Decided(id=job.id).encoded())

        error: str | None = None
        with trio.CancelScope() as scope:  # a `Stop` cancels it: the game ends `interrupted`
            self.games[job.id] = scope
            try:
                await driver.play(
                    job.order, self.host, listener=listener, lag_monitor=self.lag,
                    on_decided=decided,
                )  # fmt: skip
            except Exception as exc:  # a bug of ours around the match: loud, and the game void
                error = report_referee_error(exc, f"{job.order.title()}, in a game worker",
                                             self.host.log)  # fmt: skip
            finally:
                del self.games[job.id]
        self.outbox.send(Ended(id=job.id, error=error).encoded())

    def stop(self, game: int) -> None:
        if (scope := self.games.get(game)) is not None:
            scope.cancel()


async def serve(stdin: trio.abc.ReceiveStream, stdout: trio.abc.SendStream) -> None:
    """Play the games the server sends on `stdin` until it closes it; answer on `stdout`."""
    incoming = Incoming(stdin)
    setup = await incoming.next()
    if not isinstance(setup, Setup):
        return
    try:
        host = choose_host(setup.isolation, *setup.hidden, log=setup.log)
    except IsolationUnavailable as exc:
        await stdout.send_all(Ready(refused=str(exc)).encoded())
        return
    await stdout.send_all(Ready().encoded())
    outbox = Outbox(stdout)
    worker = Worker(host, outbox)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(outbox.run)
        nursery.start_soon(worker.lag.run)
        while (message := await incoming.next()) is not None:
            if isinstance(message, Play):
                nursery.start_soon(worker.play, message)
            elif isinstance(message, Stop):
                worker.stop(message.id)
        # The server closed its end (it stopped, or died): every game stops, unheard.
        nursery.cancel_scope.cancel()


async def _main() -> None:
    # The messages get the process's standard streams of their own; whatever else writes to
    # standard output (a stray print) goes to standard error instead, never among them.
    stdin = trio.lowlevel.FdStream(os.dup(0))
    stdout = trio.lowlevel.FdStream(os.dup(1))
    os.dup2(2, 1)
    with suppress(trio.BrokenResourceError):  # the server went before the worker was ready
        await serve(stdin, stdout)


def main() -> None:
    with suppress(OSError):  # a priority that cannot be lowered: the same as the server's
        os.nice(NICE)
    # Stopped by the server, never by a signal meant for it: a service manager's SIGTERM to the
    # server's whole group reaches the workers too, and the server then stops their games
    # itself (a handler, not SIG_IGN, which the bots would inherit).
    signal.signal(signal.SIGTERM, lambda *_: None)
    trio.run(_main)
    sys.exit(0)


if __name__ == "__main__":
    main()
