"""The ladder's games played in worker processes of this machine: how `referee arena serve`
plays them unless it plays on a cluster.

Refereeing a game (starting its bots, the driver's loop, move by move) is work an event loop
does; in the server's own it would share the loop, and the core, with the pages. So the server
starts a pool of game workers (play_worker.py), as many as the ladder plays games at once
(`[schedule] concurrency`), at a lower CPU priority than itself, and each game's order goes to
the worker with the fewest games still undecided (a worker plays its game's successor while the
bots of the one before close). The worker streams the record's lines back as they are played;
here they are written to the game's record (DIR/games/ID.jsonl, as the game goes: the server
alone writes the arena's files) and told to the game's listener (the live view), and the
ladder commits the result as it does every game's (games.py), so restarting, `kill -9` and
voiding work as before.

A worker that dies (or says what no worker says) voids the games it was playing: the record
keeps what it sent, then a void result, `infrastructure` (a referee error for nonsense), never a
bot's loss; the ladder plays them again, and a new worker takes the dead one's place. Stopping
the server stops each game (it ends `interrupted`, its bots closed, its result line written),
then closes the workers' input: they exit.
"""

from __future__ import annotations

import itertools
import logging
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import trio
from pydantic import ValidationError

from protocols import get_game
from protocols.base import Reason
from protocols.framing import Line as FramedLine
from protocols.framing import LineFramer
from referee.arena.folder import ArenaError
from referee.arena.games import Contestant, game_order
from referee.arena.play_messages import (
    CHUNK,
    FROM_WORKER,
    MAX_MESSAGE,
    Decided,
    Ended,
    Line,
    Play,
    Ready,
    Setup,
    Stop,
)
from referee.cluster.orders import GameTask
from referee.match.host import Host
from referee.match.order import GameOrder
from referee.match.recorder import Listener, header_of
from referee.records import GameRecord, Header, Ply, RecordWriter, Result, utc_now

log = logging.getLogger("referee.arena")
WORKER = (sys.executable, "-m", "referee.arena.play_worker")
STOP_GRACE = 30.0  # seconds a stopped game has to end (its bots closed) before it is left
EXIT_GRACE = 10.0  # seconds a worker whose input closed has to exit before it is killed


class PlayError(Exception):
    """A game a worker could not play (a referee error of ours); the message says why."""


@dataclass
class Flight:
    """A game being played by a worker: its record written here as its lines come."""

    order: GameOrder
    level: str  # the isolation level of the server's host, for a header the worker never sent
    writer: RecordWriter
    listener: Listener
    decided: Callable[[], None]
    header: Header | None = None
    plies: list[Ply] = field(default_factory=list)
    result: Result | None = None
    error: str | None = None
    ended: trio.Event = field(default_factory=trio.Event)
    settled: bool = False  # its result is known (its bots may still be closing)

    def take(self, line: Header | Ply | Result) -> None:
        """Record `line` and tell the listener (raises what writing the record raises)."""
        if self.result is not None:
            return
        if isinstance(line, Header):
            self.header = line
        elif isinstance(line, Ply):
            self.plies.append(line)
        else:
            self.result = line
        self.writer.write(line)
        self.listener(line)

    def void(self, reason: Reason, detail: str) -> None:
        """The game is over without its result: void, after what was recorded of it."""
        try:
            if self.header is None:
                options = get_game(self.order.game).parse_options(self.order.options)
                colours = self.order.colours()
                self.take(header_of(self.order, colours, options.model_dump(mode="json"),
                                    self.level))  # fmt: skip
            self.take(Result(winner=None, reason=reason, detail=detail, plies=len(self.plies),
                             void=True, finished_at=utc_now()))  # fmt: skip
        except Exception as exc:  # the record cannot be written: the game cannot count
            self.error = self.error or f"writing its record: {exc}"
        self.settled = True
        self.decided()
        self.ended.set()

    def record(self) -> GameRecord:
        if self.error is not None:
            raise PlayError(self.error)
        if self.header is None or self.result is None:
            raise PlayError("the game worker ended the game without its result")
        return GameRecord(header=self.header, plies=self.plies, result=self.result)


class GameWorker:
    """One worker process, and the games it is playing."""

    def __init__(self, process: trio.Process, nursery: trio.Nursery) -> None:
        self.process = process
        self.nursery = nursery  # the pool's: where this worker's reader runs
        self.flights: dict[int, Flight] = {}
        self.ready = trio.Event()
        self.refused: str | None = None
        self.alive = True
        self.gone = trio.Event()  # its output is over and its games voided
        self._sending = trio.Lock()
        self._reading = trio.CancelScope(shield=True)  # a stop never cuts a game's last lines

    @property
    def pid(self) -> int:
        return self.process.pid

    def playing(self) -> int:
        """The games it is playing whose result is not known yet: a game whose bots are only
        closing does not keep its next game from it."""
        return sum(not flight.settled for flight in self.flights.values())

    async def send(self, message: Setup | Play | Stop) -> None:
        assert self.process.stdin is not None
        async with self._sending:
            await self.process.stdin.send_all(message.encoded())

    async def read(self) -> None:
        """Route the worker's messages to its games until its output ends; then it is dead
        (or stopped), and the games it was playing are void."""
        assert self.process.stdout is not None
        framer = LineFramer(MAX_MESSAGE)
        wrong: str | None = None
        with self._reading:
            while wrong is None:
                chunk = await self.process.stdout.receive_some(CHUNK)
                for event in framer.feed(chunk) if chunk else framer.feed_eof():
                    if not isinstance(event, FramedLine):
                        wrong = "" if chunk == b"" else f"a message it could not send: {event}"
                        break
                    wrong = self._route(event.text)
                    if wrong is not None:
                        break
        await self._died(wrong or None)

    def _route(self, text: str) -> str | None:
        """Hand one message on; what is wrong with it, if anything."""
        try:
            message = FROM_WORKER.validate_json(text)
        except ValidationError as exc:
            return f"a message that is not one: {exc.errors()[0]['msg']}"
        if isinstance(message, Ready):
            self.refused = message.refused
            self.ready.set()
            return None
        flight = self.flights.get(message.id)
        if flight is None:
            return None  # a game given up on (its stop came too late)
        if isinstance(message, Line):
            try:
                flight.take(message.line)
            except Exception as exc:  # the record cannot be written: the game cannot count
                log.exception("game worker %d: recording a line", self.pid)
                flight.error = flight.error or f"writing its record: {exc}"
                self.nursery.start_soon(self._stop_quietly, message.id)
        elif isinstance(message, Decided):
            flight.settled = True
            flight.decided()
        elif isinstance(message, Ended):
            flight.error = flight.error or message.error
            flight.ended.set()
        return None

    async def _stop_quietly(self, game: int) -> None:
        with suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await self.send(Stop(id=game))

    async def _died(self, nonsense: str | None) -> None:
        self.alive = False
        self.ready.set()
        if nonsense is not None or self.flights:
            self.process.kill()
        with trio.CancelScope(shield=True):
            code = await self.process.wait()
        if nonsense is not None:
            reason = Reason.REFEREE_ERROR
            detail = f"the game worker (pid {self.pid}) sent {nonsense}"
            log.error("game worker %d: %s", self.pid, detail)
        else:
            reason, detail = Reason.INFRASTRUCTURE, died(self.pid, code)
        for flight in list(self.flights.values()):
            if not flight.ended.is_set():
                flight.void(reason, detail)
        self.gone.set()

    async def close(self) -> None:
        """Let the worker go: its input closes and it exits (killed if it does not in time)."""
        assert self.process.stdin is not None
        with suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            async with self._sending:
                await self.process.stdin.aclose()
        with trio.move_on_after(EXIT_GRACE):
            await self.process.wait()
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        # Its output is over now, unless something it started still holds it: read no more.
        with trio.move_on_after(EXIT_GRACE):
            await self.gone.wait()
        self._reading.cancel()


def died(pid: int, code: int) -> str:
    """What became of worker `pid`, said in a void game's detail."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        how = f"was killed by {name}"
    else:
        how = f"exited with status {code}"
    return f"the game worker playing it (pid {pid}) {how} mid-game"


class PlayPool:
    """A `PlayOrder`: each game played by the least busy of `size` workers (see the module's
    docstring), a dead worker replaced when the next game comes."""

    def __init__(self, nursery: trio.Nursery, host: Host, size: int) -> None:
        self.nursery = nursery
        self.host = host
        self.size = size
        self.workers: list[GameWorker] = []
        self._numbers = itertools.count(1)
        self._starting = trio.Lock()

    def setup(self) -> Setup:
        isolation = self.host.isolation
        return Setup(isolation=isolation.settings, hidden=list(isolation.hidden),
                     log=self.host.log)  # fmt: skip

    async def start_worker(self) -> GameWorker:
        """A new worker, its host chosen (`ArenaError` if it cannot be)."""
        process = await trio.lowlevel.open_process(
            WORKER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
        )
        worker = GameWorker(process, self.nursery)
        self.nursery.start_soon(worker.read)
        await worker.send(self.setup())
        await worker.ready.wait()
        if worker.refused is not None or not worker.alive:
            await worker.close()
            raise ArenaError(f"a game worker cannot play: {worker.refused or 'it exited'}")
        self.workers.append(worker)
        return worker

    async def _worker(self) -> GameWorker:
        async with self._starting:
            self.workers = [w for w in self.workers if w.alive]
            if len(self.workers) < self.size:
                return await self.start_worker()
        return min(self.workers, key=GameWorker.playing)

    async def __call__(
        self,
        task: GameTask,
        players: tuple[Contestant, Contestant],
        record: Path,
        listener: Listener,
        decided: Callable[[], None],
    ) -> GameRecord:
        order = game_order(task, players)
        worker = await self._worker()
        number = next(self._numbers)
        flight = Flight(order, self.host.isolation.name, RecordWriter(record), listener, decided)
        worker.flights[number] = flight
        try:
            await worker.send(Play(id=number, order=order))
            await flight.ended.wait()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await flight.ended.wait()  # the worker died as it was sent: its reader says so
        except BaseException:
            # Stopped (the server stops): the game ends `interrupted`, its bots closed and its
            # result line written, as a game played here would.
            with trio.CancelScope(shield=True) as cleanup:
                cleanup.deadline = trio.current_time() + STOP_GRACE
                with suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await worker.send(Stop(id=number))
                await flight.ended.wait()
            if flight.result is None:  # its last lines did not come: its record still ends
                flight.void(Reason.INTERRUPTED, "the arena server stopped while it was played")
            raise
        finally:
            del worker.flights[number]
            flight.writer.close()
        return flight.record()

    async def aclose(self) -> None:
        async with trio.open_nursery() as nursery:
            for worker in self.workers:
                nursery.start_soon(worker.close)


@asynccontextmanager
async def open_pool(host: Host, size: int) -> AsyncIterator[PlayPool]:
    """`size` game workers playing on `host`, for as long as the ladder runs (`ArenaError`
    if one cannot start)."""
    async with trio.open_nursery() as nursery:
        pool = PlayPool(nursery, host, size)
        try:
            for _ in range(size):
                await pool.start_worker()
            yield pool
        finally:
            with trio.CancelScope(shield=True):
                await pool.aclose()
