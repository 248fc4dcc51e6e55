"""Starting one confined bot process, and telling the bot's failures from the machine's.

The launcher (`referee/launch.py`) reports through a pipe of its own: nothing and then the end
of the pipe when the bot's program was executed; `ready` when the inner launcher inside the
sandbox is about to execute it; or one line saying what failed. A program that cannot be started
is the bot's fault (`StartRefused`); a fork that fails, a cgroup that cannot be joined or a
sandbox that cannot be set up is the machine's (`InfrastructureFailure`), which voids the game.
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
from collections.abc import Mapping, Sequence
from pathlib import Path

import trio

from referee.isolation.confinement import (
    Confinement,
    InfrastructureFailure,
    StartRefused,
    assigned_directories,
    hidden_program,
    resolve_executable,
)
from referee.isolation.interpreters import ShimError, unshim, without_env
from referee.isolation.launch import PARKED_FDS

REPORT_WAIT = 30.0  # the launcher (and bwrap) start in milliseconds; this is for a loaded machine
STDERR_SHOWN = 2000


async def start_confined(
    argv: Sequence[str],
    workdir: Path,
    env: Mapping[str, str] | None,
    hide: Sequence[Path],
    confinement: Confinement,
) -> trio.Process:
    """Prepare the confinement, check the command and start the bot; on failure release it.

    Raises `StartRefused` (the bot's fault) or `InfrastructureFailure` (the machine's).
    `hide` lists directories (the opponent's, the referee's records) a sandboxed bot must not see.
    """
    try:
        await confinement.prepare()
        argv, assigned = without_env(argv)
        bot_env = {**confinement.environment(env), **assigned}
        slot = confinement.slot
        if confinement.untrusted_command and slot and hidden_program(argv[0], workdir, slot.uid):
            raise StartRefused(f"command not found: {argv[0]!r}")
        executable = resolve_executable(argv[0], workdir, bot_env["PATH"])
        try:
            argv, executable, bot_env = await trio.to_thread.run_sync(
                unshim, argv, executable, workdir, bot_env
            )
        except ShimError as exc:
            raise InfrastructureFailure(str(exc)) from None
        confinement.check_reachable(executable, workdir, argv)
        return await spawn_confined(
            argv,
            cwd=workdir,
            executable=executable,
            env=bot_env,
            peers=hide,
            confinement=confinement,
            named=assigned_directories(assigned, workdir),
        )
    except BaseException:
        await confinement.release()
        raise


async def spawn_confined(
    argv: Sequence[str],
    *,
    cwd: Path,
    executable: Path,
    env: Mapping[str, str],
    peers: Sequence[Path],
    confinement: Confinement,
    named: Sequence[Path] = (),
) -> trio.Process:
    """Start the bot through the launcher; return once its own program is being executed.
    `named`: folders the bot's command named besides `argv` (see `Confinement.command`)."""
    read_fd, write_fd = os.pipe()
    write_fd = clear_of_parked(write_fd)
    control, supervisor_end = socket.socketpair()
    try:
        command = confinement.command(
            argv, cwd, executable, peers, write_fd, supervisor_end.fileno(), named
        )
        fds = (write_fd, supervisor_end.fileno())
        process = await _open(command, cwd, env, fds, confinement.uid)
    except BaseException:
        control.close()
        raise
    finally:
        os.close(write_fd)
        supervisor_end.close()
    confinement.attach(process.pid, control)
    status = trio.lowlevel.FdStream(read_fd)
    try:
        report = await _read_report(status, confinement.sandboxed)
        if report is not None:
            said = await _stderr_text(process)
            kind, _, message = report.partition(": ")
            if kind == "start":
                raise StartRefused(message)
            raise InfrastructureFailure(message + (f" ({said})" if said else ""))
    except BaseException:  # a failure, or cancelled while waiting: nothing may be left
        await _discard(process, confinement)
        raise
    finally:
        await status.aclose()
    return process


def clear_of_parked(fd: int) -> int:
    """`fd`, or a duplicate of it numbered above the launcher's `PARKED_FDS` (closing `fd`).

    The launcher in front of the sandbox parks the bot's stdin and stdout on those numbers; a
    status pipe that had one of them (a referee with a hundred files open) would be lost."""
    if fd not in PARKED_FDS:
        return fd
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, max(PARKED_FDS) + 1)
    os.close(fd)
    return moved


async def _stderr_text(process: trio.Process) -> str:
    """What a process that failed to start wrote on stderr (bounded, briefly)."""
    data = b""
    if process.stderr is not None:
        with trio.move_on_after(1.0):
            while len(data) < STDERR_SHOWN and (chunk := await process.stderr.receive_some()):
                data += chunk
    return data[:STDERR_SHOWN].decode(errors="replace").strip()


async def _open(
    command: list[str], cwd: Path, env: Mapping[str, str], fds: tuple[int, ...], owner: int | None
) -> trio.Process:
    """Start `command` on three pipes of its own, given to `owner` (see `_stdio_pipes`)."""
    ours, theirs = _stdio_pipes(owner)
    try:
        process = await trio.lowlevel.open_process(
            command,
            stdin=theirs[0],
            stdout=theirs[1],
            stderr=theirs[2],
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
            pass_fds=fds,
        )
    except BaseException as exc:
        for stream in ours:
            stream.close()
        if not isinstance(exc, OSError):
            raise
        name = errno.errorcode.get(exc.errno or 0, "error")
        raise InfrastructureFailure(f"cannot start a process ({name}: {exc.strerror})") from None
    finally:
        for fd in theirs:
            os.close(fd)
    process.stdin, process.stdout, process.stderr = ours
    process.stdio = trio.StapledStream(ours[0], ours[1])
    return process


def _stdio_pipes(
    owner: int | None,
) -> tuple[tuple[trio.lowlevel.FdStream, ...], tuple[int, ...]]:
    """The bot's stdin, stdout and stderr pipes: the referee's ends as streams, and the ends the
    bot holds. A pipe belongs to whoever made it (root), mode 0600, so a bot with a user of its
    own could not open its own streams by path (`/dev/stderr`, `/proc/self/fd/1`: `echo log >
    /dev/stderr` in an sh bot); each pipe is given to `owner` before anything starts. No other
    bot reaches it: another user's descriptors are out of its reach at every level."""
    ours: list[trio.lowlevel.FdStream] = []
    theirs: list[int] = []
    try:
        for to_bot in (True, False, False):
            read_fd, write_fd = os.pipe()
            theirs.append(read_fd if to_bot else write_fd)
            ours.append(trio.lowlevel.FdStream(write_fd if to_bot else read_fd))
            if owner is not None:
                os.fchown(read_fd, owner, owner)  # one inode for both ends: the pipe's owner
    except OSError as exc:
        for stream in ours:
            stream.close()
        for fd in theirs:
            os.close(fd)
        raise InfrastructureFailure(f"cannot make the bot's pipes ({exc})") from None
    return tuple(ours), tuple(theirs)


async def _read_report(status: trio.lowlevel.FdStream, sandboxed: bool) -> str | None:
    """None when the program is starting; else the launcher's failure line."""
    data = b""
    with trio.move_on_after(REPORT_WAIT):
        while chunk := await status.receive_some(4096):
            data += chunk
            if data == b"ready\n":
                return None
            if data.endswith(b"\n"):
                return data.decode(errors="replace").strip()
        if sandboxed:
            return "infra: the sandbox did not start the bot"
        return None
    return f"infra: the launcher did not report within {REPORT_WAIT:.0f} s"


async def _discard(process: trio.Process, confinement: Confinement) -> None:
    """A process that failed to start (or whose start was cancelled): gone and reaped."""
    with trio.CancelScope(shield=True):
        await confinement.kill_everything()
        await process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                await stream.aclose()
