"""Bots share nothing in the kernel: no kernel keys, no IPC, no vsock, none of the calls the
system-call filter closes, and nothing of theirs outlives the game.

Played by a small bot in C (`kernel_bot.c`, which a bot user can run at every level), as root,
with the referee's own Python under a 0700 home as on a fresh machine, at the default level (the
compiled helper's sandbox with bubblewrap hidden, and bubblewrap's) and at `users+cgroup` (what a
root machine without either gets), each with the compiled helper and with the Python programs.
"""

from __future__ import annotations

import ctypes
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
from referee.isolation.confinement import clear_keys
from referee.isolation.kernel import key_count
from referee.match.settings import MatchSettings
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
    # Also when the level is skipped below: a detection without bubblewrap must not be kept.
    request.addfinalizer(levels.detect.cache_clear)
    level = "users+cgroup" if setup == "users+cgroup" else "auto"
    skip_unless_available("sandbox+users" if level == "auto" else level)
    program = "bubblewrap" if setup == "auto-bubblewrap" else "auto"
    arena = Arena(level, "", program)
    try:
        yield arena
    finally:
        arena.cleanup()
        levels.detect.cache_clear()


def own_users(request: pytest.FixtureRequest) -> tuple[int, int]:
    """Two bot user ids of this test's own (its later games get the same two), away from the
    referee's default range and, most likely, from those of the other cases and runs beside it
    (a pair taken by another would void its game, not pass it)."""
    case = f"{request.node.nodeid} {os.getpid()}"
    return 63000 + zlib.crc32(case.encode()) % 400 * 2, 2


def with_users(arena: Arena, users: tuple[int, int]) -> MatchSettings:
    settings = arena.settings()
    isolation = settings.isolation.model_copy(update={"uid_base": users[0], "uid_count": 2})
    return settings.model_copy(update={"isolation": isolation})


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


def said(record: GameRecord, side: Side) -> str:
    assert record.result is not None
    return record.result.bots[side].stderr_tail.strip()


def keys_described(name: str) -> list[str]:
    """Lines of /proc/keys naming `name` (root sees every key that others may see)."""
    return [line for line in Path("/proc/keys").read_text().splitlines() if name in line]


def plant_as(uid: int, binary: Path, name: str) -> None:
    """A key readable by everyone in user `uid`'s user keyring, which outlives every process of
    that user, planted the old way: by a process of that user that no filter stops (a bot
    before the filter closed the key calls)."""
    folder = Path(tempfile.mkdtemp(prefix="kernel-plant-"))
    try:
        folder.chmod(0o755)
        shutil.copy(binary, folder / "kernel_bot")
        done = subprocess.run(
            [str(folder / "kernel_bot"), "blue", "plant-user", name, "yes"],
            input="blue\n", capture_output=True, text=True, user=uid, group=uid,
            extra_groups=[], check=True, timeout=30,
        )  # fmt: skip
        assert done.stdout.strip() == "user-ok", done.stdout
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert keys_described(name), "the key was not planted"


async def test_a_key_a_bot_plants_reaches_neither_its_opponent_nor_a_later_bot(
    stage: Arena, compiled: Path, request: pytest.FixtureRequest
) -> None:
    name, users = token(request), own_users(request)
    planter = bot(stage, compiled, "blue", "plant", name, ends=False)
    looker = bot(stage, compiled, "orange", "look", name, ends=True)
    record = await stage.play(planter, looker, with_users(stage, users))
    assert said(record, Side.BLUE) == "user-ENOSYS session-ENOSYS"
    assert ended_with(record, Side.ORANGE) == "key-unseen"
    # A later game's bots get the same two users, the planter's among them.
    later = bot(stage, compiled, "blue", "look", name, ends=False)
    last = bot(stage, compiled, "orange", "look", name, ends=True)
    record = await stage.play(later, last, with_users(stage, users))
    assert said(record, Side.BLUE) == "key-unseen"
    assert ended_with(record, Side.ORANGE) == "key-unseen"
    assert keys_described(name) == []
    stage.assert_nothing_left()


async def test_keys_a_bot_user_had_before_are_cleared_before_its_bot_starts(
    stage: Arena, compiled: Path, request: pytest.FixtureRequest
) -> None:
    name, users = token(request), own_users(request)
    for uid in range(users[0], users[0] + users[1]):
        plant_as(uid, compiled, name)
    blue = bot(stage, compiled, "blue", "look", name, ends=False)
    orange = bot(stage, compiled, "orange", "look", name, ends=True)
    record = await stage.play(blue, orange, with_users(stage, users))
    assert said(record, Side.BLUE) == "key-unseen"
    assert ended_with(record, Side.ORANGE) == "key-unseen"
    assert keys_described(name) == []
    stage.assert_nothing_left()


async def test_a_bot_users_keys_are_cleared_when_its_game_ends(
    compiled: Path, request: pytest.FixtureRequest, helper: str, users_level: None
) -> None:
    name, (uid, _) = token(request), own_users(request)
    plant_as(uid, compiled, name)
    assert key_count(uid) > 0
    await clear_keys(uid)
    assert keys_described(name) == []


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


def remove_ipc_left(name: str) -> list[str]:
    """What of the IPC objects and files named after `name` (as kernel_bot.c names them) the
    machine still has; each is removed, so that a failing test leaves nothing either."""
    hash_ = 5381
    for byte in name.encode():
        hash_ = (hash_ * 33 + byte) & 0xFFFFFFFFFFFFFFFF
    keys = {(hash_ & 0x0FFFFFFF) * 4 + which for which in (1, 2, 3)}
    left = []
    for kind, option in (("shm", "-M"), ("msg", "-Q"), ("sem", "-S")):
        for line in Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]:
            if int(line.split()[0]) in keys:
                left.append(f"SysV {kind}")
                subprocess.run(["ipcrm", option, line.split()[0]], check=False)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mq_unlink(f"/{name}".encode()) == 0:
        left.append("POSIX queue")
    for path in (Path("/dev/shm", name), Path("/tmp", name)):
        if path.exists():
            left.append(str(path))
            path.unlink()
    return left


async def test_two_bots_collude_through_no_ipc_and_leave_none(
    stage: Arena, compiled: Path, request: pytest.FixtureRequest
) -> None:
    name = token(request)
    maker = bot(stage, compiled, "blue", "ipc-make", name, ends=False)
    looker = bot(stage, compiled, "orange", "ipc-look", name, ends=True)
    try:
        record = await stage.play(maker, looker)
        assert said(record, Side.BLUE) == "shm-ok msg-ok sem-ok mq-ok dev/shm-ok tmp-ok"
        assert ended_with(record, Side.ORANGE) == (
            "shm-unseen msg-unseen sem-unseen mq-unseen dev/shm-unseen tmp-unseen"
        )
    finally:
        left = remove_ipc_left(name)
    assert left == []
    stage.assert_nothing_left()
