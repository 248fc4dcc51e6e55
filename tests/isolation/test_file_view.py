"""What a bot sees of the file system, and what the referee writes where a bot could reach: its
/sys shows no cgroup but its own, a path in /dev or /proc that its command names is the view's
own, a link planted where a referee keeps scratch folders is never followed, and a folder open
to everyone is not the bot's to write in.

Each hostile bot plays at the default level (the bots' Python a virtualenv in a 0700 home) and at
`users+cgroup` (what a root machine without a compiler and without bubblewrap gets), with
bubblewrap hidden and present, with the compiled helper and the Python programs.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from protocols.base import Reason, Side
from referee.bot import open_bot
from referee.isolation import scratch
from referee.isolation.bot_users import DEFAULT_UID_BASE, unreachable_reason
from referee.isolation.levels import Feature, IsolationSettings
from referee.records import Header, Ply, Result
from tests.isolation import test_newcomer
from tests.isolation.arena import Arena, bot_python, skip_unless_available

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="users and namespaces of their own need a root referee"
)
ORANGE = Side.ORANGE
TOKEN = f"fileview-{os.getpid()}"  # what this test's bots leave in shared folders is named so
MS_SHARED, MNT_DETACH = 1 << 20, 2
# The newcomer's machine: a virtualenv in a 0700 home, bubblewrap hidden or present.
private_home = test_newcomer.private_home


@pytest.fixture(params=["auto", "users+cgroup"])
def stage(
    request: pytest.FixtureRequest, private_home: Path, sandbox_program: str, helper: str
) -> Iterator[Arena]:
    """An arena at the default level (the private home's virtualenv Python) or at
    `users+cgroup` (a Python the bots' users can run: the home's is out of their reach)."""
    level: str = request.param
    skip_unless_available(level)
    if level == "auto" and helper == "python" and sandbox_program != "bubblewrap":
        pytest.skip("no sandbox program: the default level is users+cgroup, played as such")
    home_python = private_home / "venv" / "bin" / "python"
    python = str(home_python) if level == "auto" else bot_python(level)
    arena = Arena(level, python, sandbox_program)
    try:
        yield arena
    finally:
        arena.cleanup()


def said(record: object) -> str:
    """The line a hostile bot wrote instead of a move (what its probes found)."""
    result = record.result  # type: ignore[attr-defined]
    assert (result.winner, result.reason) == (ORANGE, Reason.BAD_SYNTAX), result
    return str(result.loser_line)


def sandboxed(arena: Arena, record: object) -> bool:
    isolation = record.result.bots[Side.BLUE].isolation  # type: ignore[attr-defined]
    return Feature.SANDBOX.value in (isolation or "").split("+")


async def test_a_bot_reads_no_cgroup_but_its_own(stage: Arena) -> None:
    # Its opponent's cgroup would give away the opponent's CPU time move by move; the machine's
    # cgroups, what else runs here. The bot walks /sys/fs/cgroup and reads every cgroup it can.
    hostile = stage.hostile(f"""
        def cgroups():
            mine = others = referees = 0
            for root, dirs, files in os.walk("/sys/fs/cgroup"):
                try:
                    with open(os.path.join(root, "cgroup.procs")) as f:
                        procs = f.read().split()
                except OSError:
                    continue
                if str(os.getpid()) in procs:
                    mine += 1
                else:
                    others += 1
                    referees += os.path.basename(root).startswith("referee-{os.getpid()}-")
            return f"mine-{{min(mine, 1)}}-others-{{min(others, 1)}}-referees-{{referees}}"
        start(); hear()
        say(cgroups())
    """)
    record = await stage.play(hostile, stage.opponent())
    found = said(record)
    # Its own (the JVM reads its limits there); in the sandbox nothing else at all; without
    # it, the machine's cgroups are in sight but no other bot's.
    expected_others = 0 if sandboxed(stage, record) else 1
    assert found == f"mine-1-others-{expected_others}-referees-0"
    stage.assert_nothing_left()


async def test_a_path_in_dev_or_proc_named_in_the_command_is_the_views_own(stage: Arena) -> None:
    # `--log /dev/null` is bound like /dev/null itself (the view has it); naming /proc/cpuinfo
    # does not bring the machine's /proc, with every process of the machine, into the view:
    # in the sandbox it sees its pid namespace's, without it its own user's processes only.
    command, folder = stage.hostile("""
        start(); hear()
        log = sys.argv[sys.argv.index("--log") + 1]
        with open(log, "w") as f:
            f.write("logged")
        processes = sum(name.isdigit() for name in os.listdir("/proc"))
        say(f"logged-{log}-processes-{'few' if processes < 10 else 'many'}")
    """)
    command += " --log /dev/null --cpus /proc/cpuinfo"
    record = await stage.play((command, folder), stage.opponent())
    assert record.result is not None and not record.result.void, record.result.detail
    assert said(record) == "logged-/dev/null-processes-few"
    stage.assert_nothing_left()


async def test_a_private_place_or_a_descriptor_named_in_the_command_plays(stage: Arena) -> None:
    # A command naming /tmp (its own: nothing of the machine's is bound over it) voided the game
    # at users+cgroup; one naming /dev/fd/1 or /proc/self/fd/1 (its own output, wherever it
    # runs) was refused as out of its user's reach.
    command, folder = stage.hostile("""
        start(); hear()
        place = sys.argv[1]
        mine = f"{place}/written-{os.getpid()}"
        with open(mine, "w") as f:
            f.write("x")
        own = not os.path.exists(f"{place}/{sys.argv[-1]}")  # the machine's /tmp has it
        for named in sys.argv[2:-1]:
            os.stat(named)
        say(f"own-{place}-{own}-named-{len(sys.argv) - 3}")
    """)
    marker = Path("/tmp", f"{TOKEN}-{folder.name}")
    marker.write_text("the machine's")
    try:
        command += f" /tmp /dev/fd/1 /proc/self/fd/1 /dev/stdout /dev/stderr {marker.name}"
        record = await stage.play((command, folder), stage.opponent())
    finally:
        marker.unlink()
    assert record.result is not None and not record.result.void, record.result.detail
    assert said(record) == "own-/tmp-True-named-4"
    assert not list(Path("/tmp").glob("written-*"))
    stage.assert_nothing_left()


def dead_pid() -> int:
    """The pid of a process that has just ended (a referee that died)."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


@pytest.fixture
def mount_point(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of this test's own, holding one file: what a planted link points at."""
    target = tmp_path / "mounted"
    target.mkdir()
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.mount(b"tmpfs", bytes(target), b"tmpfs", 0, b"size=1m") == 0
    (target / "kept").write_text("kept")
    try:
        yield target
    finally:
        libc.umount2(bytes(target), 2)


async def test_a_link_planted_like_a_dead_referees_scratch_is_never_followed(
    stage: Arena, mount_point: Path
) -> None:
    # The bot plants, where referees keep their bots' scratch folders, links named like a dead
    # referee's (in the layout of this version and of the one before) that lead to a mount
    # point. A referee starting meanwhile sweeps what dead referees left: it must unmount
    # nothing but what a referee mounted, and follow no link.
    dead = dead_pid()
    base = scratch.tempfile.gettempdir()
    names = [f"referee-bot-{dead}-{TOKEN}", f"referee-scratch-{dead}-{TOKEN}"]
    hostile = stage.hostile(f"""
        planted = 0
        for name in {names!r}:
            try:
                os.symlink({str(mount_point)!r}, os.path.join({base!r}, name))
                planted += 1
            except OSError:
                pass
        try:  # a folder of its own named like a referee's, a scratch-like link inside
            folder = os.path.join({base!r}, "referee-scratch-{dead}-{TOKEN}-dir")
            os.mkdir(folder)
            os.symlink({str(mount_point)!r}, os.path.join(folder, "referee-bot-{TOKEN}"))
            planted += 1
        except OSError:
            pass
        start(); hear()
        say(f"planted-{{planted}}")
    """)
    swept: list[int] = []

    def sweep_when_planted(line: Header | Ply | Result) -> None:
        if isinstance(line, Ply) and not swept:  # the bot has planted: another referee starts
            scratch.sweep_stale_scratch.__wrapped__()
            swept.append(line.ply)

    record = await stage.play(hostile, stage.opponent("orange"), listener=sweep_when_planted)
    assert swept and said(record).startswith("planted-")
    assert os.path.ismount(mount_point), "a referee unmounted what a bot's link pointed at"
    assert (mount_point / "kept").read_text() == "kept"
    left = [name for name in os.listdir(base) if TOKEN in name]
    assert left == [], f"left in {base}: {left}"
    stage.assert_nothing_left()


async def test_a_folder_open_to_everyone_is_not_the_bots_to_write_in(
    stage: Arena, tmp_path: Path
) -> None:
    # A bot's folder writable by every user (1777): under `referee play`'s own settings its bot
    # neither plants a `referee-games` link there for the next root referee to follow, nor
    # fills the disk with files of its own.
    from referee.commands.play import play_isolation  # the settings `referee play` gives bots

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    command, folder = stage.hostile(f"""
        def attempt(make):
            try:
                make()
                return "done"
            except OSError:
                return "blocked"
        def fill():
            with open("fill", "wb") as f:
                f.write(b"x" * (1 << 20))
        start(); hear()
        link = attempt(lambda: os.symlink({str(elsewhere)!r}, "referee-games"))
        say(f"link-{{link}}-fill-{{attempt(fill)}}")
    """)
    folder.chmod(0o1777)
    base = stage.settings()
    asked = play_isolation(stage.level, network=False)
    isolation = asked.model_copy(
        update={"allow_root": base.isolation.allow_root, "sandbox_program": stage.sandbox_program}
    )
    assert isinstance(isolation, IsolationSettings)
    record = await stage.play(
        (command, folder), stage.opponent(), base.model_copy(update={"isolation": isolation})
    )
    assert said(record) == "link-blocked-fill-blocked"
    assert sorted(os.listdir(folder)) == ["hostile.py", "secret"]
    stage.assert_nothing_left()


@pytest.fixture
def shared_mount(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Path, str]]:
    """A tmpfs of this test's own, under a mount that shares its mounts and unmounts (as a
    systemd machine's root does), and the name mountinfo shows it by."""
    libc = ctypes.CDLL(None, use_errno=True)
    parent, name = tmp_path / "shared", f"{TOKEN}-{zlib.crc32(request.node.nodeid.encode()):x}"
    parent.mkdir()
    assert libc.mount(b"tmpfs", bytes(parent), b"tmpfs", 0, b"size=1m") == 0
    try:
        assert libc.mount(None, bytes(parent), None, MS_SHARED, None) == 0
        child = parent / "child"
        child.mkdir()
        assert libc.mount(name.encode(), bytes(child), b"tmpfs", 0, b"size=1m") == 0
        yield child, name
    finally:
        libc.umount2(bytes(parent / "child"), MNT_DETACH)
        libc.umount2(bytes(parent), MNT_DETACH)


async def test_a_bot_keeps_nothing_mounted_that_the_machine_unmounts(
    stage: Arena, shared_mount: tuple[Path, str]
) -> None:
    # A bot's mount namespace starts as a copy of the machine's. Once a game is over its
    # scratch tmpfs is unmounted, but a namespace that kept its own copy (another bot's, still
    # playing) would keep that tmpfs, and its memory, alive: it must let go of what the machine
    # unmounts, wherever the machine's mounts propagate.
    mount, name = shared_mount
    hostile = stage.hostile(f"""
        def mounted():
            with open("/proc/self/mountinfo") as f:
                return "present" if {name!r} in f.read() else "absent"
        before = mounted()
        start(); hear()
        say(f"start-{{before}}-end-{{mounted()}}")
    """)
    unmounted: list[int] = []

    def unmount_after_the_first_move(line: Header | Ply | Result) -> None:
        if isinstance(line, Ply) and not unmounted:  # before the bot hears its opponent's move
            ctypes.CDLL(None, use_errno=True).umount2(bytes(mount), MNT_DETACH)
            unmounted.append(line.ply)

    record = await stage.play(hostile, stage.opponent(), listener=unmount_after_the_first_move)
    assert unmounted and not os.path.ismount(mount)
    # The sandbox's view never had it; without the sandbox the bot's copy had it, until then.
    seen = "absent" if sandboxed(stage, record) else "present"
    assert said(record) == f"start-{seen}-end-absent"
    stage.assert_nothing_left()


def test_a_sweep_follows_no_link_planted_in_the_machines_tmp(mount_point: Path) -> None:
    # A root referee's bots have a /tmp of their own, so what they plant never reaches the
    # machine's (above); another user of the machine may still plant there links and a folder
    # named like a dead referee's (in the layout of this version and of the one before) that
    # lead to a mount point. The sweep unmounts nothing and follows no link.
    dead = dead_pid()
    base = Path(scratch.tempfile.gettempdir())
    links = [base / f"referee-bot-{dead}-{TOKEN}-sweep", base / f"referee-scratch-{dead}-{TOKEN}"]
    folder = base / f"referee-scratch-{dead}-{TOKEN}-sweep"
    try:
        for link in links:
            link.symlink_to(mount_point)
        folder.mkdir(mode=0o700)  # as a referee's own would be: it is swept
        (folder / f"referee-bot-{TOKEN}").symlink_to(mount_point)
        scratch.sweep_stale_scratch.__wrapped__()
        assert os.path.ismount(mount_point), "the sweep unmounted what a planted link pointed at"
        assert (mount_point / "kept").read_text() == "kept"
        assert not folder.exists()
    finally:
        for link in links:
            link.unlink(missing_ok=True)
        shutil.rmtree(folder, ignore_errors=True)


def test_no_bot_user_may_enter_the_referees_private_folder() -> None:
    # A root referee's bots reach their scratch tmpfs only as their private places, which the
    # launcher or the sandbox binds as root: none of their users needs a way into the folder
    # that holds every bot's scratch, so none has one.
    folder = scratch.private_folder()
    assert unreachable_reason(folder, DEFAULT_UID_BASE, os.X_OK) is not None


@pytest.mark.parametrize("record", ["default", "chosen"])
def test_play_follows_no_link_planted_where_it_writes_its_record(
    tmp_path: Path, record: str
) -> None:
    # Another user of the machine (or a bot of an earlier game) planted, in a folder everyone
    # may write to, a `referee-games` link and a link named like the record asked for. The root
    # referee refuses to play rather than write where they lead.
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)
    target = tmp_path / "target"
    target.mkdir()
    for name, leads_to in (("referee-games", target), ("chosen.jsonl", target / "record")):
        (folder / name).symlink_to(leads_to)
        os.lchown(folder / name, 65534, 65534)  # planted by another user: nobody
    chosen = ["--record", "chosen.jsonl"] if record == "chosen" else []
    done = subprocess.run(
        [sys.executable, "-m", "referee", "play", "tic-tac-toe", "-p1", "builtin:random",
         "-p2", "builtin:random", *chosen],
        cwd=folder, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    said = " ".join(done.stderr.split())
    assert "link" in said and ("referee-games" in said or "chosen.jsonl" in said), said
    assert os.listdir(target) == []


JAVA_LIMIT = """
public class Limit {
    public static void main(String[] args) throws Exception {
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
        System.out.println("heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024));
    }
}
"""


async def test_a_java_bot_still_finds_its_memory_limit(stage: Arena) -> None:
    # The JVM sizes its heap by the memory limit it reads in its cgroups (all of memory, cpu,
    # cpuacct and cpuset under v1): with /sys showing only the bot's own, it must still find it.
    if shutil.which("javac") is None:
        pytest.skip("no javac here (Debian package default-jdk-headless)")
    folder = stage.directory()
    (folder / "Limit.java").write_text(JAVA_LIMIT)
    subprocess.run(["javac", "Limit.java"], cwd=folder, check=True)
    (folder / "Limit.class").chmod(0o644)
    limits = stage.settings().limits
    async with open_bot(
        f"java -cp {folder} Limit", cwd=folder, isolation=stage.isolation(), limits=limits
    ) as bot:
        answer = await bot.ask("blue", trio.current_time() + 60)
    assert answer.startswith("heap "), bot.stderr.text()
    assert int(answer.split()[1]) <= limits.memory_mb, answer  # not a share of the machine's
    stage.assert_nothing_left()
