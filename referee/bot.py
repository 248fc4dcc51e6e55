"""One bot process as a transport: spawn it, write lines, read its output, always clean it up.

What the lines mean is the match's business. A `BotProcess` is opened with `open_bot(...)`, an
async context manager whose exit closes the bot's stdin, waits a short grace, then SIGKILLs the
bot's whole process group and reaps it, whatever the exit path (normal end, error, Ctrl-C or
cancellation).

Its output is read all the time and fed to an `Exchange` (referee/match/exchange.py), which says
what each line is: the answer to what the bot was asked (`prompt`), or a line out of turn.
Answers and faults go to the `PlayerEvents` the bot was opened with (the match) the moment they
are read; opened without, the bot is asked one line at a time (`ask`, with a deadline), and a
fault found while it is not asked goes to `on_fault`. Everything the bot does wrong is a
`BotFault` with a `Reason` and a human sentence.

Each bot runs confined (referee/isolation/confinement.py): resource limits and the chosen
isolation level are applied by a launcher before the bot's program starts; a program that
cannot be started is a `BotStartError` (the bot's fault), a machine that cannot start it is a
`BotInfrastructureError` (nobody's fault: the game is void). The confinement also owns the watch
that freezes a bot pondering while not on move and the meter of each answer's CPU time
(`last_cpu_ms`), both off the path of the moves.
"""

from __future__ import annotations

import fcntl
import os
import shlex
import signal
import termios
from array import array
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from protocols.base import Reason
from protocols.framing import DEFAULT_MAX_LINE_BYTES
from referee.exchange import Answer, BotFault, Closed, Exchange, Heard, PlayerEvents
from referee.isolation import (
    Confinement,
    InfrastructureFailure,
    Isolation,
    Limits,
    StartRefused,
    Unreachable,
    proctree,
    start_confined,
)
from referee.isolation.cpu import CpuMeter
from referee.isolation.ponder import DEFAULT_FREEZE_GRACE, PonderWatch
from referee.printable import printable

READ_CHUNK = 65536
DEFAULT_STDERR_TAIL = 16384
DEFAULT_EXIT_GRACE = 1.0
# After a bot closes its output, how long to wait for its exit code before reporting without it.
EXIT_CODE_WAIT = 0.5
FLUSH_HINT = "it was itself waiting to read its input: did you flush stdout after your move?"


class BotStartError(BotFault):
    """The bot's program could not be started at all (not found, not executable, bad command)."""

    def __init__(self, detail: str) -> None:
        super().__init__(Reason.CRASH, detail)


class BotInfrastructureError(Exception):
    """The machine could not start the bot (out of processes or memory, a cgroup or sandbox
    that could not be set up): not the bot's fault, the game is void."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class BotUnreachable(BotInfrastructureError):
    """The bot's own user cannot reach its program or folder here (a private home on the way):
    the machine's set-up, which a run refuses before its first game, with the fix."""


@dataclass(frozen=True, slots=True)
class BotExit:
    """How a bot process ended: its exit code (negative: killed by that signal)."""

    returncode: int | None
    killed_by_referee: bool
    stderr_tail: str
    stderr_bytes: int
    unasked: tuple[str, ...] = ()  # lines it wrote when it was not asked (the first ones)


class TailBuffer:
    """Keeps the last `limit` bytes appended and counts all of them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._data = bytearray()

    def append(self, chunk: bytes | bytearray) -> None:
        self.total += len(chunk)
        self._data += chunk[-self.limit :] if self.limit else b""
        excess = len(self._data) - self.limit
        if excess > 0:
            del self._data[:excess]

    def text(self) -> str:
        """The tail as text; undecodable bytes shown as escapes, never an error."""
        return self._data.decode("utf-8", "backslashreplace")


def unread_bytes(fd: int, scratch: array[int]) -> int:
    """Bytes waiting in the pipe `fd` that nobody has read yet (0 if that cannot be told).
    `scratch`, an array of one C int, takes the answer: asked on every move, the kernel's
    answer written into a buffer kept for it costs a third of one made for each call."""
    try:
        fcntl.ioctl(fd, termios.FIONREAD, scratch, True)
    except OSError:
        return 0
    return scratch[0]


def write_now(fd: int, data: bytes) -> bytes:
    """Write `data` to the pipe `fd` (-1: none) at once, as far as it has room: what is left
    to write (all of it if nothing could be written: a full, closed or broken pipe, which
    trio's `send_all` then waits for or reports as the right error).

    trio's `send_all` first yields to the scheduler, which on the path of every move costs
    more than the write itself.
    """
    if fd < 0:
        return data
    try:
        written = os.write(fd, data)
    except OSError:
        return data
    return data[written:]


def stream_fd(stream: object) -> int:
    """The descriptor of a trio pipe stream (-1 if it has none)."""
    fileno = getattr(stream, "fileno", None)
    return fileno() if fileno is not None else -1


def split_command(command: str) -> list[str]:
    """Split a shell-style command string into argv (quotes honoured, no shell involved)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise BotStartError(f"cannot parse command {command!r}: {exc}") from None
    if not argv:
        raise BotStartError("empty command")
    return argv


class OneAtATime:
    """The events of a bot asked one line at a time (`BotProcess.ask`): the answer is kept
    for the ask, and a fault found while nobody asks goes to `on_fault`."""

    def __init__(self, on_fault: Callable[[Any], None] | None) -> None:
        self.on_fault = on_fault
        self.asking = False
        self.reply: str | None = None
        self.heard = trio.Event()

    async def answered(self, player: Any, line: str) -> None:
        self.reply = line
        self.heard.set()

    def faulted(self, player: Any) -> None:
        if self.asking:
            self.heard.set()
        elif self.on_fault is not None:
            self.on_fault(player)


class BotProcess:
    """A running bot; use `open_bot` to get one."""

    def __init__(
        self,
        process: trio.Process,
        name: str,
        max_line_bytes: int,
        stderr_tail_bytes: int,
        events: PlayerEvents,
        confinement: Confinement | None = None,
    ) -> None:
        self.process = process
        self.name = name
        self.events = events
        self.confinement = confinement or Confinement(None, None, freeze=False)
        if self.confinement.pid is None:
            self.confinement.attach(process.pid)
        assert self.confinement.cpu is not None and self.confinement.ponder is not None
        self.cpu: CpuMeter = self.confinement.cpu
        self.ponder: PonderWatch = self.confinement.ponder
        self.stderr = TailBuffer(stderr_tail_bytes)
        self.exit: BotExit | None = None
        self.exchange = Exchange(max_line_bytes)
        self._stderr_drained = trio.Event()
        # Asked on every move how much of the bot's output is unread (-1: it cannot be told),
        # and written to on every move: kept, not looked up each time.
        self._stdout_fd = stream_fd(process.stdout)
        self._stdin_fd = stream_fd(process.stdin)
        self._unread = array("i", [0])

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def fault(self) -> BotFault | None:
        """What it did wrong so far, kept until the match judges it."""
        return self.exchange.fault

    @property
    def unasked(self) -> list[str]:
        return self.exchange.unasked

    @property
    def isolation_level(self) -> str:
        """The isolation level this bot actually runs under (what a record reports)."""
        return self.confinement.level

    @property
    def isolation_note(self) -> str | None:
        """Why it runs below the level asked for, if it does (the cause, named)."""
        return "; ".join(self.confinement.notes) or None

    @property
    def last_cpu_ms(self) -> float | None:
        """The CPU time (ms) the bot used from its previous answer to its last one (from its
        start, for its first answer), where measured (referee/isolation/cpu.py)."""
        return self.cpu.last_ms()

    async def send_line(self, line: str) -> None:
        """Write one line to the bot that it does not answer (its colour)."""
        self._raise_fault()
        await self._write(line)

    async def prompt(self, line: str) -> None:
        """Write `line`, which the bot answers: from before the write its next line is its
        answer (one racing the end of our write included), reported to its events. Written at
        once when the pipe has room; otherwise the write waits for the bot to read, or for the
        end of the game (its deadline passes; its input is closed).

        A line the bot completed before it was asked is out of turn, however soon the ask
        follows: what the bot had written by now is what the reader has taken from the pipe plus
        what is still unread in it, and only a line ending after that offset can be the answer.
        """
        if self.exchange.fault is not None:
            raise self.exchange.fault
        self.cpu.settle()  # its last answer's CPU, before it can use more
        self.exchange.ask(unread_bytes(self._stdout_fd, self._unread))
        self.ponder.thaw()
        if rest := write_now(self._stdin_fd, (line + "\n").encode()):
            await self._write_rest(rest)

    async def ask(self, line: str, deadline: float) -> str:
        """`prompt(line)`, then wait for the answer, all before `deadline` (trio's clock); for
        a bot opened without events. Raises the bot's fault, or its timeout."""
        waiter = self.events
        assert isinstance(waiter, OneAtATime), "a bot opened with events is asked with prompt"
        waiter.reply, waiter.heard, waiter.asking = None, trio.Event(), True
        try:
            with trio.move_on_at(deadline):
                await self.prompt(line)
                await waiter.heard.wait()
            if waiter.reply is not None:
                # Answered in time. A fault right after it (a second line in the same turn)
                # stays in `self.fault` for the caller to judge.
                return waiter.reply
            self._raise_fault()
            raise self.timeout_fault()
        finally:
            waiter.asking = False
            self.stop_waiting()

    async def notify(self, line: str, timeout: float) -> bool:
        """Best-effort write at the end of a game (final move, `END`), even to a faulted bot.

        Bounded by `timeout` so a bot that stopped reading cannot hold the referee; returns
        whether the line was written.
        """
        stdin = self.process.stdin
        if stdin is None or self.process.returncode is not None:
            return False
        self.ponder.thaw()
        with trio.move_on_after(timeout):
            try:
                await stdin.send_all(line.encode() + b"\n")
                return True
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return False
        return False

    def stop_waiting(self) -> None:
        """The answer asked for is not wanted any more: a line from now is out of turn."""
        self.exchange.stop_waiting()

    def timeout_fault(self) -> BotFault:
        """The fault of a bot that did not answer in time, with what its process shows: a
        limit it ran into, or that it was itself waiting for input."""
        detail = "no complete line within the time limit"
        limit = self.confinement.limit_hit(self.stderr.text())
        if limit is not None:  # it ran into a limit and was stuck after that: say so
            return BotFault(Reason.RESOURCE_LIMIT, f"{limit}, then wrote {detail}")
        if proctree.waiting_for_input(self.pid):
            detail += f"; {FLUSH_HINT}"
        return BotFault(Reason.TIMEOUT, detail)

    async def _write(self, line: str) -> None:
        if rest := write_now(self._stdin_fd, (line + "\n").encode()):
            await self._write_rest(rest)

    async def _write_rest(self, rest: bytes) -> None:
        """What the pipe had no room for (or could not take), the trio way: waiting for the
        bot to read, or finding that it stopped reading (its fault)."""
        stdin = self.process.stdin
        assert stdin is not None
        try:
            await stdin.send_all(rest)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.exchange.found(await self._closed_output_fault("stopped reading its input"))
            self._raise_fault()

    def _raise_fault(self) -> None:
        if self.fault is not None:
            raise self.fault

    async def read_stdout(self) -> None:
        """The always-running reader: feeds stdout to the exchange and reports what it heard."""
        stdout = self.process.stdout
        assert stdout is not None
        try:
            exchange = self.exchange
            while not exchange.ended:
                chunk = await stdout.receive_some(READ_CHUNK)
                if (answer := exchange.answer(chunk)) is not None:
                    await self._answered(answer)  # a move: the common case, kept short
                elif heard := exchange.lines_of(chunk):
                    await self._report(heard)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await self._report(self.exchange.feed_eof())

    async def _report(self, heard: list[Heard]) -> None:
        """Report what one read brought: the answer once the read's other lines are judged
        (a second line of the same turn is then a fault the match sees with the answer)."""
        answer: str | None = None
        faulted = False
        for item in heard:
            if isinstance(item, Answer):
                answer = item.text
            elif isinstance(item, Closed):
                if answer is not None:  # the answer first: explaining the exit takes a while
                    await self._answered(answer)
                    answer = None
                fault = await self._closed_output_fault(item.what)
                faulted = self.exchange.found(fault) or faulted
            else:
                faulted = True
        if answer is not None:
            await self._answered(answer)
        elif faulted:
            self.events.faulted(self)

    async def _answered(self, line: str) -> None:
        self.cpu.answered()
        await self.events.answered(self, line)  # judged, and its move forwarded
        if self.fault is None:  # the move is on its way: watch what the bot does now
            self.ponder.answered()

    def _idle(self) -> bool:
        """Not asked, nothing wrong, the game on: a bot that may be frozen if it ponders."""
        exchange = self.exchange
        return not exchange.asked and exchange.fault is None and not exchange.closing

    async def watch_pondering(self) -> None:
        """Freeze the bot after each answer once it has used its grace of CPU time since."""
        await self.ponder.run(self._idle)

    async def _closed_output_fault(self, what: str) -> BotFault:
        # Give the process a moment to exit so the verdict can carry its exit code.
        with trio.move_on_after(EXIT_CODE_WAIT):
            await self.process.wait()
        code = self.process.returncode
        if code is None:
            return BotFault(Reason.CRASH, f"{what} but is still running")
        # What it wrote on stderr before it died may still be in the pipe: let the drain end.
        with trio.move_on_after(EXIT_CODE_WAIT):
            await self._stderr_drained.wait()
        own_code, limit = self.confinement.explain_exit(code, self.stderr.text())
        if limit:
            return BotFault(
                Reason.RESOURCE_LIMIT, f"{what}: {describe_returncode(own_code)}: {limit}"
            )
        detail = f"{what}: {describe_returncode(own_code)}"
        if not self.exchange.answers and (said := last_words(self.stderr.text())):
            # It died before its first move: the cause (a missing module, a bad path) is
            # almost always in its last lines on stderr, so the verdict carries them.
            detail += f"; {STDERR_QUOTED} {said}"
        return BotFault(Reason.CRASH, detail)

    async def read_stderr(self) -> None:
        """Drain stderr continuously into a bounded tail, so the bot can never block on it."""
        stderr = self.process.stderr
        assert stderr is not None
        try:
            while chunk := await stderr.receive_some(READ_CHUNK):
                self.stderr.append(chunk)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self._stderr_drained.set()

    async def shutdown(self, grace: float) -> BotExit:
        """Close stdin, wait up to `grace` for an exit, then kill everything of the bot and reap."""
        self.exchange.close()
        killed = False
        with trio.CancelScope(shield=True):
            self.ponder.thaw()
            if self.process.stdin is not None:
                await self.process.stdin.aclose()
            if grace > 0 and self.process.returncode is None:
                with trio.move_on_after(grace):
                    await self.process.wait()
            killed = self.process.returncode is None
            await self.confinement.kill_everything()
            await self.process.wait()
            await proctree.wait_group_gone(self.process.pid)
            await self.confinement.release()
        code = self.process.returncode
        if code is not None:
            code = self.confinement.explain_exit(code)[0]
        self.exit = BotExit(
            code, killed, self.stderr.text(), self.stderr.total, tuple(self.unasked)
        )
        return self.exit


STDERR_QUOTED = "its stderr ends:"  # how a verdict quotes a bot's last words on stderr


def last_words(stderr: str, lines: int = 3, limit: int = 400) -> str:
    """The last few non-blank lines of a bot's stderr, on one line, bounded, and printable: the
    verdict quoting them is shown on terminals, in tables and pages (see `printable`)."""
    shown = printable(stderr, lines=True)
    tail = [line.strip() for line in shown.splitlines() if line.strip()][-lines:]
    text = " | ".join(tail)
    return text if len(text) <= limit else "..." + text[-limit:]


def describe_returncode(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}"
    return f"exited with code {code}"


def check_folder(folder: Path) -> Path:
    """The folder a bot runs in, if it is one: a missing folder is the bot's (its config's)
    fault, named as such, not a machine that failed to start a process."""
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise BotStartError(f"could not start: its folder {folder} (cwd) {what}")
    return folder


@asynccontextmanager
async def open_bot(
    command: str,
    *,
    name: str = "bot",
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    stderr_tail_bytes: int = DEFAULT_STDERR_TAIL,
    exit_grace: float = DEFAULT_EXIT_GRACE,
    events: PlayerEvents | None = None,
    on_fault: Callable[[BotProcess], None] | None = None,
    limits: Limits | None = None,
    isolation: Isolation | None = None,
    freeze: bool = False,
    freeze_grace: float = DEFAULT_FREEZE_GRACE,
    hide: Sequence[Path] = (),
) -> AsyncIterator[BotProcess]:
    """Start `command` as a confined bot in its own session and process group; clean up on exit.

    `events` hear its answers and faults (the match); without them the bot is asked one line
    at a time (`BotProcess.ask`) and `on_fault` hears of a fault found while it is not asked.
    `limits` default to `Limits()`, `isolation` to the basic level; `freeze` stops the bot when
    it is not being asked and still uses CPU `freeze_grace` seconds after its answer (it
    ponders); `hide` lists directories (the opponent's, the run's records) a sandboxed bot must
    not see, besides those the isolation hides from every bot of the run.
    """
    confinement = Confinement(isolation, limits, freeze, freeze_grace)
    argv = split_command(command)
    folder = check_folder((cwd or Path.cwd()).absolute())
    try:
        hidden = [*hide, *confinement.isolation.hidden]
        process = await start_confined(argv, folder, env, hidden, confinement)
    except StartRefused as exc:
        raise BotStartError(f"could not start: {exc}") from None
    except Unreachable as exc:
        raise BotUnreachable(str(exc)) from None
    except InfrastructureFailure as exc:
        raise BotInfrastructureError(str(exc)) from None
    hearing = events if events is not None else OneAtATime(on_fault)
    bot = BotProcess(process, name, max_line_bytes, stderr_tail_bytes, hearing, confinement)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(bot.read_stdout)
            nursery.start_soon(bot.read_stderr)
            nursery.start_soon(bot.watch_pondering)
            try:
                yield bot
            finally:
                cancelled = trio.current_effective_deadline() == float("-inf")
                await bot.shutdown(0 if cancelled else exit_grace)
                # A descendant that escaped the group may still hold the pipes: stop reading.
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # The readers never raise, so anything here came from the caller's block: re-raise it
        # as itself rather than wrapped by the nursery.
        raise unwrap_single(group) from None
    finally:
        with trio.CancelScope(shield=True):
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    await stream.aclose()


def unwrap_single(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one exception inside nested single-member groups, or the group itself."""
    exc: BaseException = group
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc
