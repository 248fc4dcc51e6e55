"""Bots share nothing in the kernel: no vsock, none of the calls the system-call filter closes.

Played by a small bot in C (`kernel_bot.c`, which a bot user can run at every level), as root,
with the referee's own Python under a 0700 home as on a fresh machine, at the default level (the
compiled helper's sandbox with bubblewrap hidden, and bubblewrap's) and at `users+cgroup` (what a
root machine without either gets), each with the compiled helper and with the Python programs.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocols.base import Reason, Side
from referee.isolation import levels
from referee.records import GameRecord
from tests.isolation.arena import MOVES, Arena, skip_unless_available

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="users and namespaces of their own need a root referee"
)
SOURCE = Path(__file__).with_name("kernel_bot.c")
SETUPS = ["auto-helper", "auto-bubblewrap", "users+cgroup"]


@pytest.fixture(scope="module")
def compiled() -> Iterator[Path]:
    if shutil.which("gcc") is None:
        pytest.skip("no gcc here (Debian package gcc)")
    folder = Path(tempfile.mkdtemp(prefix="kernel-bot-"))
    binary = folder / "kernel_bot"
    subprocess.run(["gcc", "-O2", "-pthread", "-o", str(binary), str(SOURCE), "-lrt"], check=True)
    try:
        yield binary
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=SETUPS)
def stage(
    request: pytest.FixtureRequest, helper: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Arena]:
    """An arena at the default level (the compiled helper's sandbox, bubblewrap hidden; or
    bubblewrap's) or at users+cgroup; `helper` runs each with both launchers."""
    setup: str = request.param
    if setup == "auto-bubblewrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed here (Debian package bubblewrap)")
    if setup == "auto-helper":
        monkeypatch.setattr(levels, "find_bwrap", lambda: (None, "bwrap is not installed"))
    levels.detect.cache_clear()
    level = "users+cgroup" if setup == "users+cgroup" else "auto"
    skip_unless_available("sandbox+users" if level == "auto" else level)
    program = "bubblewrap" if setup == "auto-bubblewrap" else "auto"
    arena = Arena(level, "", program)
    try:
        yield arena
    finally:
        arena.cleanup()
        levels.detect.cache_clear()


def token(request: pytest.FixtureRequest) -> str:
    return f"kernel-{os.getpid()}-{zlib.crc32(request.node.nodeid.encode()):x}"


def bot(
    arena: Arena, binary: Path, colour: str, action: str, name: str, ends: bool
) -> tuple[str, Path]:
    """The C bot in a directory of its own: its command (see kernel_bot.c) and directory."""
    directory = arena.directory()
    shutil.copy(binary, directory / "kernel_bot")
    moves = MOVES[0::2] if colour == "blue" else MOVES[1::2]
    words = [str(directory / "kernel_bot"), colour, action, name, "yes" if ends else "no"]
    return shlex.join([*words, *moves[:4]]), directory


def ended_with(record: GameRecord, side: Side) -> str:
    """The line a bot wrote as its move to end the game (what came of its action)."""
    result = record.result
    assert result is not None and not result.void, result
    assert (result.winner, result.reason) == (side.other, Reason.BAD_SYNTAX), result
    return str(result.loser_line)


async def test_calls_a_bot_never_needs_are_closed(
    stage: Arena, compiled: Path, request: pytest.FixtureRequest
) -> None:
    held = None
    port = 40000 + zlib.crc32(request.node.nodeid.encode()) % 20000
    try:  # a vsock port held outside: a bot in the same socket space would find it taken
        held = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
        held.bind((socket.VMADDR_CID_ANY, port))
    except OSError:
        held = None  # no vsock here: the bot's socket fails either way
    try:
        prober = bot(stage, compiled, "blue", f"calls:{port}", token(request), ends=True)
        opponent = bot(stage, compiled, "orange", "none", token(request), ends=False)
        record = await stage.play(prober, opponent)
    finally:
        if held is not None:
            held.close()
    assert ended_with(record, Side.BLUE) == (
        "io_uring-ENOSYS userfaultfd-ENOSYS perf-ENOSYS bpf-ENOSYS keyctl-ENOSYS "
        "clone-newuser-EPERM unshare-newuser-EPERM ptrace-EPERM vsock-EAFNOSUPPORT thread-ok"
    )
    stage.assert_nothing_left()
