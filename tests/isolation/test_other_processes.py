"""No process outside a bot's own is within its reach: not its opponent's memory, descriptors or
signals, at any level, and without the sandbox a bot does not even see other users' processes.

The attack is the one an independent try-out played: a bot finds its opponent in /proc, opens
its memory through /proc/PID/mem, writes a forged line into its output through /proc/PID/fd/1
(which made the opponent lose, at `basic` under a referee that is not root), and signals it.
It is played under a referee run as an ordinary user at `basic` (its Python, in a 0700 home,
reached as a referee that installed its own would), and as root at every level: the default
(the compiled helper's sandbox, bubblewrap's), `users+cgroup` and `basic+root`, each with the
compiled helper and the Python programs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocols.base import Reason, Side
from referee.isolation import landlock
from referee.records import read_record
from tests.isolation.arena import Arena, bot_python, skip_unless_available

AS_USER = Path(__file__).with_name("as_user.py")
# The ordinary user the referee runs as: away from every range of bot users the tests use.
REFEREE_UID = 64242

# The try-out's attack: every process whose command line names the opponent's program (its bot
# and its supervisor), probed in turn; what came of it is the bot's move. The program is named
# to it backwards, so that its own processes, whose command lines carry it, are not taken for
# the opponent's.
ATTACK = """
import errno
def attack(victim):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if victim.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            pass
    came = set()
    for pid in found:
        try:
            os.close(os.open(f"/proc/{pid}/mem", os.O_RDWR))
            came.add("mem-opened")
        except OSError as exc:
            came.add("mem-" + errno.errorcode[exc.errno])
        try:
            fd = os.open(f"/proc/{pid}/fd/1", os.O_WRONLY)
            os.write(fd, b"zz-forged\\n")
            os.close(fd)
            came.add("fd-written")
        except OSError as exc:
            came.add("fd-" + errno.errorcode[exc.errno])
        try:
            os.kill(pid, 0)
            came.add("signal-sent")
        except OSError as exc:
            came.add("signal-" + errno.errorcode[exc.errno])
    return " ".join([f"found-{min(len(found), 1)}", *sorted(came)])
start(); hear()
say(attack(sys.argv[1][::-1]))
"""
BLOCKED = "found-1 fd-EACCES mem-EACCES signal-EPERM"


def attacker(arena: Arena, victim: str) -> tuple[str, Path]:
    command, folder = arena.hostile(ATTACK)
    return f"{command} {victim[::-1]}", folder


def attack_outcome(record: object) -> str:
    """The attacker's line: it lost by bad syntax, its opponent played on untouched."""
    result = record.result  # type: ignore[attr-defined]
    assert not result.void, result.detail
    assert (result.winner, result.reason) == (Side.ORANGE, Reason.BAD_SYNTAX), result
    return str(result.loser_line)


@pytest.fixture
def unprivileged(tmp_path: Path) -> Iterator[tuple[list[str], Path]]:
    """How to run a command as an ordinary user (the referee's own Python within its reach),
    and a folder that user may write in."""
    if os.geteuid() != 0:
        yield [], tmp_path  # this process is an ordinary user already
        return
    folder = Path(tempfile.mkdtemp(prefix="unprivileged-", dir="/tmp"))
    os.chown(folder, REFEREE_UID, REFEREE_UID)
    prefixes = sorted({Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()})
    wrapper = [sys.executable, str(AS_USER), str(REFEREE_UID), *map(str, prefixes), "--"]
    try:
        yield [*wrapper, "env", f"HOME={folder}"], folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_bot_reaches_no_process_of_its_opponent_under_a_referee_that_is_not_root(
    unprivileged: tuple[list[str], Path],
) -> None:
    # Both bots run as the referee's own user here: only the Landlock domain of each keeps them
    # apart (and from the referee).
    if landlock.abi() == 0:
        pytest.skip("no Landlock in this kernel: docs/isolation.md says what is left open")
    wrapper, folder = unprivileged
    arena = Arena("basic", sys.executable)
    try:
        victim_command, victim_folder = arena.opponent()
        victim = str(victim_folder / "opponent.py")
        hostile, hostile_folder = attacker(arena, victim)
        record = folder / "game.jsonl"
        done = subprocess.run(
            [*wrapper, sys.executable, "-m", "referee", "play", "lasker-morris",
             "--isolation", "basic", "--no-random-assignment", "--record", str(record),
             "-p1", hostile, "-p2", victim_command],
            cwd=hostile_folder, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert attack_outcome(read_record(record)) == BLOCKED
        arena.assert_nothing_left()
    finally:
        arena.cleanup()


async def test_a_bot_reaches_no_process_of_its_opponent_at_any_root_level(
    root_stage: Arena,
) -> None:
    victim_command, victim_folder = root_stage.opponent()
    hostile = attacker(root_stage, str(victim_folder / "opponent.py"))
    record = await root_stage.play(hostile, (victim_command, victim_folder))
    # In the sandbox the opponent is not in sight; without it, a bot with a user of its own
    # sees no process of another user (/proc is mounted so for it); a bot that runs as root
    # by request sees it, and its Landlock domain keeps it out of reach.
    in_sight = root_stage.level == "basic+root"
    if in_sight and landlock.abi() == 0:
        pytest.skip("no Landlock in this kernel: a bot run as root reaches every process")
    assert attack_outcome(record) == (BLOCKED if in_sight else "found-0")
    root_stage.assert_nothing_left()


RENAME = """
def rename():
    os.makedirs("/tmp/from", exist_ok=True)
    os.makedirs("/tmp/to", exist_ok=True)
    with open("/tmp/from/file", "w") as f:
        f.write("moved")
    try:
        os.rename("/tmp/from/file", "/tmp/to/file")
        return "rename-ok"
    except OSError as exc:
        return "rename-" + errno.errorcode[exc.errno]
"""


@pytest.mark.parametrize(
    ("abi", "renamed"), [(5, "rename-ok"), (1, "rename-EXDEV")], ids=["abi-2-to-5", "abi-1"]
)
async def test_the_ruleset_of_an_older_landlock_keeps_the_opponent_out_of_reach(
    abi: int, renamed: str, helper: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before ABI 6 a domain cannot be made without handling a file-system right: the one
    # handled (moving files between folders, granted beneath /; making block devices) leaves a
    # bot all it needs of its files, bar renaming into another folder under the first ABI.
    # Signals have no scope there: a bot run as root still signals its opponent.
    if os.geteuid() != 0:
        pytest.skip("bots run as root only under a root referee")
    if landlock.abi() < abi:
        pytest.skip(f"this kernel's Landlock is older than ABI {abi}")
    ruleset = landlock.ruleset_for(abi)
    assert ruleset is not None
    monkeypatch.setattr(landlock, "argument", ruleset.argument)
    arena = Arena("basic+root", sys.executable)
    try:
        victim_command, victim_folder = arena.opponent()
        command, folder = arena.hostile(
            ATTACK.replace("say(attack(", RENAME + 'say(rename() + " " + attack(')
        )
        reversed_victim = str(victim_folder / "opponent.py")[::-1]
        record = await arena.play(
            (f"{command} {reversed_victim}", folder), (victim_command, victim_folder)
        )
        expected = f"{renamed} found-1 fd-EACCES mem-EACCES signal-sent"
        assert attack_outcome(record) == expected
        arena.assert_nothing_left()
    finally:
        arena.cleanup()


async def test_a_bot_without_the_sandbox_sees_no_process_of_another_user(
    helper: str,
) -> None:
    # At users+cgroup (a root machine without a compiler and without bubblewrap) a bot read its
    # opponent's CPU time and command line in /proc, and those of every bot of the machine.
    if os.geteuid() != 0:
        pytest.skip("bots get users of their own only under a root referee")
    skip_unless_available("users+cgroup")
    arena = Arena("users+cgroup", bot_python("users+cgroup"))
    try:
        hostile = arena.hostile(f"""
            def sight():
                mine = others = 0
                for entry in os.listdir("/proc"):
                    if entry.isdigit():
                        try:
                            owner = os.stat(f"/proc/{{entry}}").st_uid
                        except OSError:
                            continue
                        mine += owner == os.getuid()
                        others += owner != os.getuid()
                referee = os.path.exists("/proc/{os.getpid()}")
                with open("/proc/self/stat") as f:
                    own = f.read().split()[0] == str(os.getpid())
                return f"mine-{{min(mine, 1)}}-others-{{others}}-referee-{{referee}}-self-{{own}}"
            start(); hear()
            say(sight())
        """)
        record = await arena.play(hostile, arena.opponent())
        assert attack_outcome(record) == "mine-1-others-0-referee-False-self-True"
        arena.assert_nothing_left()
    finally:
        arena.cleanup()


async def test_a_bot_reads_no_other_users_key_counts(root_stage: Arena) -> None:
    # /proc/key-users lists every user of the machine with the number of kernel keys it holds.
    hostile = root_stage.hostile("""
        start(); hear()
        try:
            with open("/proc/key-users") as f:
                users = len(f.read().splitlines())
            say(f"key-users-{users}")
        except OSError as exc:
            say(f"key-users-{exc.errno}")
    """)
    record = await root_stage.play(hostile, root_stage.opponent())
    assert attack_outcome(record) == "key-users-0"
    root_stage.assert_nothing_left()
