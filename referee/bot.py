"""One bot process: spawn it, send and receive lines under deadlines, and always clean it up.

The transport only. What the lines mean is the match's business. A `BotProcess` is opened with
`open_bot(...)`, an async context manager whose exit closes the bot's stdin, waits a short
grace, then SIGKILLs the bot's whole process group and reaps it, whatever the exit path
(normal end, error, Ctrl-C or cancellation).

Everything the bot does wrong becomes a `BotFault` with a `Reason` and a human sentence. A fault
noticed while the bot was not being asked (output out of turn, closed output) is kept and
reported through the `on_fault` callback at once, so the match can stop waiting for the other
bot and end the game.

Each bot runs confined (`referee/confinement.py`): resource limits and the chosen isolation level
are applied by a launcher before the bot's program starts; a program that cannot be started is a
`BotStartError` (the bot's fault), a machine that cannot start it is a `BotInfrastructureError`
(nobody's fault: the game is void). When asked for, the bot is frozen whenever it is not on move,
and the CPU time of each answer is measured (`last_cpu_ms`), off the path of the moves.
"""

from __future__ import annotations

import fcntl
import os
import shlex
import signal
import struct
import termios
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trio

from protocols.base import Reason
from protocols.framing import (
    DEFAULT_MAX_LINE_BYTES,
    BadEncoding,
    EndOfInput,
    FramingEvent,
    Line,
    LineFramer,
    LineTooLong,
)
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
from referee.printable import printable

READ_CHUNK = 65536
DEFAULT_STDERR_TAIL = 16384
DEFAULT_EXIT_GRACE = 1.0
# Lines a bot wrote when it was not asked, kept for the record (after a game-ending move they
# are trailing output, never judged): at most this many.
UNASKED_KEPT = 20
# Freezing the bot not on move: a bot that has used more than its grace of CPU time since its
# answer (it ponders) is frozen until it is asked again; one that finishes its bookkeeping within
# that CPU and blocks on its input is never stopped, so bots that look at the wall clock after
# writing their move are not stopped mid-way. The grace is CPU time, not wall time, so how busy
# the machine is changes nothing: a spinning bot is frozen once it has had its grace of CPU,
# however long the machine took to give it that; a bot doing 20 ms of bookkeeping is not frozen,
# however long the machine took to give it those. The watch reads the bot's CPU every
# PONDER_POLL seconds after its answer, and stops once the bot is blocked: not runnable, and less
# than PONDER_IDLE_CPU of CPU since the last reading.
DEFAULT_FREEZE_GRACE = 0.05
PONDER_POLL = 0.01
PONDER_IDLE_CPU = 0.0005
# After a bot closes its output, how long to wait for its exit code before reporting without it.
EXIT_CODE_WAIT = 0.5
FLUSH_HINT = "it was itself waiting to read its input: did you flush stdout after your move?"


class BotFault(Exception):
    """Something a bot did that loses it the game."""

    def __init__(self, reason: Reason, detail: str, line: str | None = None) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.line = line


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


def unread_bytes(stream: object) -> int:
    """Bytes waiting in a pipe that nobody has read yet (0 if that cannot be told)."""
    fileno = getattr(stream, "fileno", None)
    if fileno is None:
        return 0
    try:
        raw = fcntl.ioctl(fileno(), termios.FIONREAD, b"\0\0\0\0")
    except OSError:
        return 0
    return int(struct.unpack("i", raw)[0])


async def send_now(stream: trio.abc.SendStream, data: bytes) -> None:
    """`stream.send_all(data)`, but written at once when the pipe has room for it.

    trio's `send_all` first yields to the scheduler, which on the path of every move costs
    more than the write itself; a pipe that is full, closed or broken takes trio's own path,
    which waits for room or raises the right error.
    """
    fileno = getattr(stream, "fileno", None)
    fd = fileno() if fileno is not None else -1
    if fd >= 0:
        try:
            written = os.write(fd, data)
        except OSError:
            written = 0
        if written == len(data):
            return
        data = data[written:]
    await stream.send_all(data)


def split_command(command: str) -> list[str]:
    """Split a shell-style command string into argv (quotes honoured, no shell involved)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise BotStartError(f"cannot parse command {command!r}: {exc}") from None
    if not argv:
        raise BotStartError("empty command")
    return argv


class BotProcess:
    """A running bot; use `open_bot` to get one."""

    def __init__(
        self,
        process: trio.Process,
        name: str,
        max_line_bytes: int,
        stderr_tail_bytes: int,
        on_fault: Callable[[BotProcess], None] | None,
        confinement: Confinement | None = None,
    ) -> None:
        self.process = process
        self.name = name
        self.on_fault = on_fault
        self.confinement = confinement or Confinement(None, None, freeze=False)
        if self.confinement.pid is None:
            self.confinement.attach(process.pid)
        self._last_cpu_ms: float | None = None
        self._cpu_due = False  # an answer came whose CPU time is not measured yet
        # The bot's CPU seconds when its last answer was measured (at its start, before any).
        self._cpu_mark: float | None = self.confinement.cpu_seconds()
        self._answered = 0
        self.stderr = TailBuffer(stderr_tail_bytes)
        self.fault: BotFault | None = None
        self.exit: BotExit | None = None
        self._framer = LineFramer(max_line_bytes)
        self._asked = False
        self._asked_from = 0  # stream offset of the bot's output when it was last asked
        self.unasked: list[str] = []
        self.freeze_grace = DEFAULT_FREEZE_GRACE
        self._answered_event = trio.Event()
        self._stderr_drained = trio.Event()
        self._reply: str | None = None
        self._reply_event = trio.Event()
        self._closing = False
        self._ask_scope: trio.CancelScope | None = None
        self._interrupted = False

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def isolation_level(self) -> str:
        """The isolation level this bot actually runs under (what a record reports)."""
        return self.confinement.level

    @property
    def isolation_note(self) -> str | None:
        """Why it runs below the level asked for, if it does (the cause, named)."""
        return "; ".join(self.confinement.notes) or None

    async def send_line(self, line: str) -> None:
        """Write one line to the bot (for lines it does not answer: colours, `END`)."""
        self._raise_fault()
        await self._write(line)

    async def notify(self, line: str, timeout: float) -> bool:
        """Best-effort write at the end of a game (final move, `END`), even to a faulted bot.

        Bounded by `timeout` so a bot that stopped reading cannot hold the referee; returns
        whether the line was written.
        """
        stdin = self.process.stdin
        if stdin is None or self.process.returncode is not None:
            return False
        self._thaw()
        with trio.move_on_after(timeout):
            try:
                await stdin.send_all(line.encode() + b"\n")
                return True
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return False
        return False

    async def ask(
        self, line: str | None, deadline: float, then: Callable[[], None] | None = None
    ) -> str | None:
        """Write `line` (if any), then wait for the bot's one-line answer, all before `deadline`.

        The deadline is on trio's clock (`trio.current_time()`); the bot is "asked" from before
        the write, so an answer racing the end of our write is still taken as the answer.
        `then` runs once the line is written, while the bot thinks: work that must not delay
        the line (the match records the move it just forwarded there). Returns None if
        `interrupt()` stopped the wait.

        A line the bot completed before it was asked is out of turn, however soon the ask
        follows: what the bot had written by now is what the reader has taken from the pipe plus
        what is still unread in it, and only a line ending after that offset can be the answer.
        """
        self._raise_fault()
        self._settle_cpu()
        self._asked_from = self._framer.fed + unread_bytes(self.process.stdout)
        self._asked = True
        self._reply = None
        self._reply_event = trio.Event()
        self._interrupted = False
        self._thaw()
        try:
            with trio.move_on_at(deadline) as scope:
                self._ask_scope = scope
                if line is not None:
                    await self._write(line)
                if then is not None:
                    then()
                await self._reply_event.wait()
            if self._reply is not None:
                # Answered in time. A fault right after it (a second line in the same turn) stays
                # in `self.fault` for the caller to judge.
                self._answered += 1
                self._cpu_due = True
                return self._reply
            self._raise_fault()
            if self._interrupted:
                return None
            raise self._timeout_fault()
        finally:
            self._asked = False
            self._ask_scope = None
            if self._answered and self.fault is None:
                self._answered_event.set()  # the pondering watch decides about freezing

    @property
    def last_cpu_ms(self) -> float | None:
        """The CPU time (ms) the bot used from its previous answer to its last one (from its
        start, for its first answer), where measured.

        Measured when first read after the answer, not when the answer arrives, so that the
        reading stays off the path from a bot's move to its opponent (the match reads it once
        it has forwarded the move). What a bot does after its answer therefore counts towards
        its next one, and the answers' times add up to all the CPU the bot used; freezing
        bounds what it can do between answers to the freeze grace.
        """
        self._settle_cpu()
        return self._last_cpu_ms

    def _settle_cpu(self) -> None:
        if not self._cpu_due:
            return
        self._cpu_due = False
        now = self.confinement.cpu_seconds()
        self._last_cpu_ms = None
        if now is not None and self._cpu_mark is not None:
            self._last_cpu_ms = round(max(now - self._cpu_mark, 0.0) * 1000, 3)
        self._cpu_mark = now

    async def watch_pondering(self) -> None:
        """Freeze the bot after each answer once it has used its grace of CPU time since."""
        if self.confinement.freezer is None or not self.confinement.freezer.enabled:
            return
        while True:
            await self._answered_event.wait()
            self._answered_event = trio.Event()
            if await self._ponders() and not self._over_or_asked():
                self._freeze()

    def _over_or_asked(self) -> bool:
        return self._asked or self.fault is not None or self._closing

    async def _ponders(self) -> bool:
        """Watch the bot after its answer: True once it has used more than its grace of CPU,
        False once it blocks first (or it is asked again, or the game ends)."""
        start = self.confinement.cpu_seconds()
        if start is None:  # its CPU cannot be read: freezing after the grace is the fair choice
            await trio.sleep(self.freeze_grace)
            return True
        last = start
        while not self._over_or_asked():
            await trio.sleep(PONDER_POLL)
            now = self.confinement.cpu_seconds()
            if now is None:
                return False  # released: the game is over
            if now - start > self.freeze_grace:
                return True
            if now - last < PONDER_IDLE_CPU and not self.confinement.runnable():
                return False  # blocked on its input: it costs nothing
            last = now
        return False

    def _thaw(self) -> None:
        if self.confinement.freezer is not None:
            self.confinement.freezer.thaw()

    def _freeze(self) -> None:
        if self.confinement.freezer is not None:
            self.confinement.freezer.freeze()

    def _timeout_fault(self) -> BotFault:
        detail = "no complete line within the time limit"
        limit = self.confinement.limit_hit(self.stderr.text())
        if limit is not None:  # it ran into a limit and was stuck after that: say so
            return BotFault(Reason.RESOURCE_LIMIT, f"{limit}, then wrote {detail}")
        if proctree.waiting_for_input(self.pid):
            detail += f"; {FLUSH_HINT}"
        return BotFault(Reason.TIMEOUT, detail)

    def interrupt(self) -> None:
        """Stop a pending `ask` (it returns None): the game ended for another reason."""
        if self._ask_scope is not None:
            self._interrupted = True
            self._ask_scope.cancel()

    async def _write(self, line: str) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            await send_now(stdin, line.encode() + b"\n")
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await self._set_fault(await self._closed_output_fault("stopped reading its input"))
            self._raise_fault()

    def _raise_fault(self) -> None:
        if self.fault is not None:
            raise self.fault

    async def read_stdout(self) -> None:
        """The always-running reader: frames stdout and hands each line to whoever asked."""
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while not self._framer.closed:
                chunk = await stdout.receive_some(READ_CHUNK)
                events = self._framer.feed(chunk) if chunk else self._framer.feed_eof()
                for event in events:
                    await self._handle(event)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await self._handle(EndOfInput(0))

    async def _handle(self, event: FramingEvent) -> None:
        if isinstance(event, Line):
            await self._handle_line(event)
            return
        if self._closing:
            return
        if isinstance(event, LineTooLong):
            await self._set_fault(
                BotFault(
                    Reason.LINE_TOO_LONG,
                    f"wrote a line longer than {event.limit} bytes",
                )
            )
        elif isinstance(event, BadEncoding):
            await self._set_fault(
                BotFault(
                    Reason.BAD_ENCODING,
                    f"wrote bytes that are not UTF-8 ({event.error})",
                    event.raw.decode("utf-8", "backslashreplace"),
                )
            )
        else:
            what = "closed its output"
            if event.partial:
                what += f" with an unterminated line of {event.partial} bytes (missing newline?)"
            await self._set_fault(await self._closed_output_fault(what))

    async def _handle_line(self, line: Line) -> None:
        if self._asked and self._reply is None and line.end > self._asked_from:
            self._reply = line.text
            self._reply_event.set()
            return
        # Kept even while closing: what a bot says after the game's end goes in the record.
        if len(self.unasked) < UNASKED_KEPT:
            self.unasked.append(line.text)
        if not self._closing:
            fault = BotFault(Reason.OUT_OF_TURN, "wrote a line when it was not its turn", line.text)
            await self._set_fault(fault)

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
        if not self._answered and (said := last_words(self.stderr.text())):
            # It died before its first move: the cause (a missing module, a bad path) is
            # almost always in its last lines on stderr, so the verdict carries them.
            detail += f"; {STDERR_QUOTED} {said}"
        return BotFault(Reason.CRASH, detail)

    async def _set_fault(self, fault: BotFault) -> None:
        if self.fault is not None or self._closing:
            return
        self.fault = fault
        if self._asked:
            self._reply_event.set()
        elif self.on_fault is not None:
            self.on_fault(self)

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
        self._closing = True
        killed = False
        with trio.CancelScope(shield=True):
            self._thaw()
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
    on_fault: Callable[[BotProcess], None] | None = None,
    limits: Limits | None = None,
    isolation: Isolation | None = None,
    freeze: bool = False,
    freeze_grace: float = DEFAULT_FREEZE_GRACE,
    hide: Sequence[Path] = (),
) -> AsyncIterator[BotProcess]:
    """Start `command` as a confined bot in its own session and process group; clean up on exit.

    `limits` default to `Limits()`, `isolation` to the basic level; `freeze` stops the bot when
    it is not being asked and still uses CPU `freeze_grace` seconds after its answer (it
    ponders); `hide` lists directories (the opponent's, the run's records) a sandboxed bot must
    not see, besides those the isolation hides from every bot of the run.
    """
    confinement = Confinement(isolation, limits, freeze)
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
    bot = BotProcess(process, name, max_line_bytes, stderr_tail_bytes, on_fault, confinement)
    bot.freeze_grace = freeze_grace
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
