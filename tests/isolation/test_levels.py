"""Isolation levels and limits: detection and choice, what each level measures and enforces,
infrastructure failures that void a game, and default limits that real bots run under."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import trio
from pydantic import ValidationError

from protocols.base import Reason
from referee.bot import BotInfrastructureError, BotUnreachable, open_bot
from referee.isolation import native
from referee.isolation.cgroups import V1_VIEWED, sweep_stale
from referee.isolation.interpreters import user_base
from referee.isolation.launch import PARKED_FDS
from referee.isolation.levels import (
    Detection,
    Feature,
    FeatureCheck,
    IsolationSettings,
    IsolationUnavailable,
    choose,
    detect,
    names_root,
    parse_level,
)
from referee.isolation.limits import MB, Limits
from referee.isolation.scratch import (
    PRIVATE_PREFIX,
    SCRATCH_PREFIX,
    TMPFS_NAME,
    scratch_mounts,
    sweep_stale_scratch,
)
from tests.isolation.arena import Arena


def test_levels_are_parsed_and_unknown_features_named() -> None:
    assert parse_level("auto") is None
    assert parse_level("basic") == frozenset()
    assert parse_level("cgroup+sandbox") == {Feature.SANDBOX, Feature.CGROUP}
    with pytest.raises(ValueError, match="unknown isolation feature 'jail'"):
        parse_level("sandbox+jail")
    with pytest.raises(ValidationError, match="level"):
        IsolationSettings(level="jail")
    assert parse_level("cgroup+root") == {Feature.CGROUP} and names_root("cgroup+root")
    assert parse_level("basic+root") == frozenset() and not names_root("sandbox")
    with pytest.raises(ValueError, match="users and root contradict"):
        parse_level("users+root")


def test_detection_gives_a_reason_for_every_feature() -> None:
    found = detect()
    assert set(found.checks) == set(Feature)
    for check in found.checks.values():
        assert check.reason
    made = found.bwrap is not None or found.native_sandbox
    assert made == found.checks[Feature.SANDBOX].available
    assert found.native_sandbox == (os.geteuid() == 0 and native.native_helper() is not None)
    assert (found.cgroups is not None) == found.checks[Feature.CGROUP].available
    assert found.checks[Feature.USERS].available == (os.geteuid() == 0)
    if shutil.which("bwrap") is None:
        assert "bwrap is not installed" in found.checks[Feature.SANDBOX].reason


def test_asking_for_a_missing_feature_is_an_error_that_says_why() -> None:
    nothing = Detection(
        {f: FeatureCheck(f, False, f"no {f.value} in this test") for f in Feature}, None, None
    )
    with pytest.raises(IsolationUnavailable, match="sandbox: no sandbox in this test"):
        choose(IsolationSettings(level="sandbox+cgroup"), nothing)
    if os.geteuid() == 0:  # nothing left but running bots as root, which must be asked for
        with pytest.raises(IsolationUnavailable, match="would run bots as root"):
            choose(IsolationSettings(level="auto"), nothing)
    assert choose(IsolationSettings(level="auto", allow_root=True), nothing).name == "basic"


def test_limits_become_the_documented_rlimits() -> None:
    calls = {
        name: (soft, hard)
        for name, soft, hard in Limits().rlimits(memory_by_rlimit=True, nproc=False)
    }
    assert calls["RLIMIT_CORE"] == (0, 0)
    assert calls["RLIMIT_CPU"] == (1800, 1801)
    assert calls["RLIMIT_DATA"] == (1024 * MB, None)  # never RLIMIT_AS: it breaks the JVM
    assert "RLIMIT_AS" not in calls and "RLIMIT_NPROC" not in calls
    with_cgroup = Limits().rlimits(memory_by_rlimit=False, nproc=True)
    assert {c[0] for c in with_cgroup} >= {"RLIMIT_NPROC"}
    assert "RLIMIT_DATA" not in {c[0] for c in with_cgroup}


async def test_each_level_applies_what_it_promises(arena: Arena) -> None:
    command, directory = arena.hostile("""
        import resource
        soft = {n: resource.getrlimit(getattr(resource, n))[0] for n in
                ("RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE")}
        cgroup = open("/proc/self/cgroup").read()
        note(f"limits {soft} uid {os.getuid()} env {sorted(os.environ)} pid {os.getpid()}")
        # The sandbox (pid 2 or 3) has a cgroup namespace rooted at its own cgroup, and shows
        # that where its hierarchy is mounted (nothing at all without a cgroup of its own).
        shown = ("/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/memory/cgroup.procs")
        own = os.getpid() <= 3 and any(os.path.exists(path) for path in shown)
        note("cgroup " + ("referee-" if "referee-" in cgroup or own else "none"))
        try:
            open(os.path.join(os.getcwd(), "written"), "w").close()
            note("cwd writable")
        except OSError:
            note("cwd read-only")
        hear(); say("done")
    """)
    isolation = arena.isolation()
    limits = arena.settings().limits
    async with open_bot(command, cwd=directory, isolation=isolation, limits=limits) as bot:
        assert await bot.ask("go", trio.current_time() + 30) == "done"
        await bot.notify("END", 1)
    assert bot.exit is not None
    said = bot.exit.stderr_tail
    assert "'RLIMIT_CORE': 0" in said and "'RLIMIT_CPU': 1800" in said
    assert f"'RLIMIT_FSIZE': {8 * MB}" in said and "'RLIMIT_NOFILE': 256" in said
    # A minimal environment: nothing of the referee's leaks through.
    env = said.split("env ")[1].split(" pid")[0]
    sandboxed = Feature.SANDBOX in isolation.features
    own_user = Feature.USERS in isolation.features
    expected = ["HOME", "LANG", "PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "TMPDIR"]
    expected += ["PWD"] if sandboxed else []  # the sandbox's --chdir sets it
    expected += ["PYTHONUSERBASE"] if user_base() is not None else []  # its HOME is its own
    assert env == str(sorted(expected))
    uid = int(said.split(" uid ")[1].split()[0])
    assert (uid != 0) == own_user
    pid = int(said.split(" pid ")[1].split()[0])
    assert (pid <= 3) == sandboxed  # in its own pid namespace, after bwrap's init
    assert ("cgroup referee-" in said) == (Feature.CGROUP in isolation.features)
    # The sandbox mounts the bot's directory read-only unless asked; a user of its own cannot
    # write to a directory of root's.
    assert ("cwd read-only" in said) == (sandboxed or own_user)
    assert bot.confinement.level == arena.level
    arena.assert_nothing_left()


async def test_a_bot_starts_with_every_signal_at_its_default(arena: Arena) -> None:
    """Nothing the referee's own processes ignore or block reaches the bot: Python ignores
    SIGPIPE and SIGXFSZ, and an ignored signal survives exec, so a bot of another language would
    not be stopped when its reader is gone or at its file-size limit."""
    command = "sh -c 'grep -E \"^Sig(Ign|Blk)\" /proc/self/status >&2; read line; echo done'"
    isolation = arena.isolation()
    limits = arena.settings().limits
    async with open_bot(command, cwd=arena.directory(), isolation=isolation, limits=limits) as bot:
        assert await bot.ask("go", trio.current_time() + 30) == "done"
        await bot.notify("END", 1)
    assert bot.exit is not None
    said = bot.exit.stderr_tail
    assert "SigIgn:\t0000000000000000" in said and "SigBlk:\t0000000000000000" in said, said
    arena.assert_nothing_left()


async def test_cpu_time_of_each_move_is_measured(arena: Arena) -> None:
    # The move burns 0.3 s of CPU in a child process that it waits for.
    hostile = arena.hostile("""
        start(); hear()
        pid = os.fork()
        if pid == 0:
            end = time.process_time() + 0.3
            while time.process_time() < end:
                pass
            os._exit(0)
        os.waitpid(pid, 0)
        say(MOVES.pop(0)); hear(); say("done")
    """)
    record = await arena.play(hostile, arena.opponent(), arena.settings(move_timeout=10.0))
    assert record.result is not None and record.result.reason is Reason.BAD_SYNTAX
    burnt = record.plies[2]
    assert burnt.cpu_ms is not None and burnt.cpu_ms >= 280, burnt
    # Its other move, and the opponent's replies, cost next to nothing.
    assert all(p.cpu_ms is not None and p.cpu_ms < 150 for p in record.plies[1:2])
    # The record says what the game was played under.
    assert record.header.confinement is not None
    assert record.header.confinement["isolation"] == arena.level
    assert record.header.confinement["limits"]["memory_mb"] == 256
    assert {r.isolation for r in record.result.bots.values()} == {arena.level}
    arena.assert_nothing_left()


async def test_start_up_failure_of_the_machine_voids_the_game(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_more_processes(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(trio.lowlevel, "open_process", no_more_processes)
    record = await arena.play(arena.hostile("pass"), arena.opponent())
    assert record.result is not None
    assert (record.result.winner, record.result.reason) == (None, Reason.INFRASTRUCTURE)
    assert record.result.void
    assert "EAGAIN" in record.result.detail
    arena.assert_nothing_left()


async def test_limits_the_machine_cannot_apply_are_an_infrastructure_failure(
    arena: Arena,
) -> None:
    impossible = arena.settings().limits.model_copy(update={"open_files": 2**40})
    record = await arena.play(
        arena.hostile("pass"), arena.opponent(), arena.settings(limits=impossible)
    )
    assert record.result is not None and record.result.reason is Reason.INFRASTRUCTURE
    assert "cannot set RLIMIT_NOFILE" in record.result.detail
    arena.assert_nothing_left()


async def test_a_bot_its_user_cannot_reach_runs_as_root_only_where_allowed(
    tmp_path: Path, users_level: None
) -> None:
    private = tmp_path / "private"  # pytest's directories are private to root
    private.mkdir(mode=0o700)
    script = private / "bot.py"
    script.write_text("import sys; sys.stdin.readline(); print('ok', flush=True)")
    command = f"{sys.executable} {script}"
    for level in ("users", "auto"):
        isolation = choose(IsolationSettings(level=level))
        with pytest.raises(BotUnreachable, match=rf"user \d+ cannot enter {private}, on the way"):
            async with open_bot(command, cwd=private, isolation=isolation):
                pass  # pragma: no cover
    allowed = choose(IsolationSettings(level="auto", allow_root=True))
    async with open_bot(command, cwd=private, isolation=allowed) as bot:
        assert await bot.ask("go", trio.current_time() + 30) == "ok"
    assert Feature.USERS not in bot.confinement.features
    assert bot.isolation_note is not None and f"cannot enter {private}" in bot.isolation_note


@pytest.fixture(params=["python", "java", "c"])
def language(request: pytest.FixtureRequest) -> str:
    """A language whose compiler this machine has (skipped with the reason where not)."""
    name: str = request.param
    compiler = {"java": "javac", "c": "gcc"}.get(name)
    if compiler is not None and shutil.which(compiler) is None:
        package = {"javac": "default-jdk-headless", "gcc": "gcc"}[compiler]
        pytest.skip(f"no {compiler} here (Debian package {package})")
    return name


async def test_default_limits_let_real_bots_run(arena: Arena, language: str) -> None:
    source = {"python": PYTHON_ECHO, "java": JAVA_ECHO, "c": C_ECHO}[language]
    directory = arena.directory()
    command = build(language, source, directory, arena.python)
    isolation = arena.isolation()
    async with open_bot(command, cwd=directory, isolation=isolation, limits=Limits()) as bot:
        answer = await bot.ask("blue", trio.current_time() + 60)
    assert answer == "echo blue", bot.stderr.text()
    arena.assert_nothing_left()


PYTHON_ECHO = """
import sys
for line in sys.stdin:
    print("echo", line.strip(), flush=True)
"""
JAVA_ECHO = """
import java.io.*;
public class Echo {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            System.out.println("echo " + line.trim());
            System.out.flush();
        }
    }
}
"""
C_ECHO = """
#include <stdio.h>
#include <string.h>
int main(void) {
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\\n")] = 0;
        printf("echo %s\\n", line);
        fflush(stdout);
    }
    return 0;
}
"""


def build(language: str, source: str, directory: Path, python: str) -> str:
    if language == "python":
        (directory / "echo.py").write_text(source)
        (directory / "echo.py").chmod(0o644)
        return f"{python} {directory / 'echo.py'}"
    if language == "java":
        (directory / "Echo.java").write_text(source)
        subprocess.run(["javac", "Echo.java"], cwd=directory, check=True)
        (directory / "Echo.class").chmod(0o644)
        return f"java -cp {directory} Echo"
    (directory / "echo.c").write_text(source)
    subprocess.run(["gcc", "-O2", "-o", "echo", "echo.c"], cwd=directory, check=True)
    return str(directory / "echo")


async def test_infrastructure_error_type_is_distinct_from_a_bot_fault() -> None:
    with pytest.raises(BotInfrastructureError):
        async with open_bot(
            f"{sys.executable} -c pass", limits=Limits(open_files=2**40), exit_grace=0
        ):
            pass  # pragma: no cover


async def test_a_bot_outlives_the_thread_that_started_it(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    # trio starts processes from worker threads, which end once idle: nothing of a bot may be
    # tied to that thread (a parent-death signal would kill the bot when the thread ends).
    monkeypatch.setattr(trio._core._thread_cache, "IDLE_TIMEOUT", 0.05)
    command, directory = arena.hostile("while True: say('echo ' + hear())")
    isolation = arena.isolation()
    async with open_bot(command, cwd=directory, isolation=isolation, exit_grace=0.1) as bot:
        assert await bot.ask("one", trio.current_time() + 30) == "echo one"
        await trio.sleep(1.0)  # the starting thread has long ended
        assert await bot.ask("two", trio.current_time() + 30) == "echo two"
    arena.assert_nothing_left()


async def test_an_opponent_directory_inside_the_bots_own_is_hidden(sandbox_level: None) -> None:
    own = Path(tempfile.mkdtemp(prefix="nested-", dir="/tmp"))
    try:
        (own / "theirs").mkdir()
        (own / "theirs" / "secret").write_text("secret")
        (own / "mine").write_text("mine")
        script = own / "bot.py"
        script.write_text(
            "import os, sys\n"
            "sys.stdin.readline()\n"
            "print(sorted(os.listdir('.')), os.listdir('theirs'), flush=True)\n"
        )
        isolation = choose(IsolationSettings(level="sandbox", allow_root=True))
        command = f"{sys.executable} {script}"
        async with open_bot(command, cwd=own, isolation=isolation, hide=[own / "theirs"]) as bot:
            answer = await bot.ask("go", trio.current_time() + 30)
        assert answer == "['bot.py', 'mine', 'theirs'] []"
    finally:
        shutil.rmtree(own)


def dead_pid() -> int:
    """The pid of a process that has just ended."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def test_what_a_referee_killed_hard_left_is_cleaned_up(cgroup_level: None) -> None:
    driver = detect().cgroups
    assert driver is not None
    name = f"referee-{dead_pid()}-1"
    dirs = {c: p / name for c, p in driver.parents.items()}
    for path in dirs.values():
        path.mkdir()
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        for controller, path in dirs.items():
            if controller not in V1_VIEWED:  # a new cpuset has no processors to run on
                (path / "cgroup.procs").write_text(str(sleeper.pid))
        private = Path(tempfile.gettempdir()).resolve() / f"{PRIVATE_PREFIX}{dead_pid()}-abc"
        private.mkdir(mode=0o711)
        scratch = private / f"{SCRATCH_PREFIX}abc"
        scratch.mkdir()
        if os.geteuid() == 0:  # its bot's tmpfs is still mounted
            libc = ctypes.CDLL(None, use_errno=True)
            assert libc.mount(TMPFS_NAME, bytes(scratch), b"tmpfs", 0, b"size=1m") == 0
        (scratch / "sub").mkdir()
        # Any referee starting on this machine (another test's, a tournament's) sweeps too, and
        # may come first: what counts is that this dead referee's cgroup and bots are gone.
        sweep_stale(driver)
        sweep_stale_scratch.__wrapped__()
        assert sleeper.wait(timeout=10) == -9
        assert not any(path.exists() for path in dirs.values())
        assert not private.exists()
        assert scratch not in scratch_mounts()
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.parametrize("first_free", [min(PARKED_FDS), 1030], ids=["parked", "over-1024"])
async def test_a_bot_starts_whatever_descriptors_the_referee_has_open(
    arena: Arena, first_free: int
) -> None:
    # A referee running a hundred games has hundreds of files open: a bot's pipes then get any
    # numbers, including those the sandbox's launcher parks stdin and stdout on, and those
    # above 1024, which select() cannot watch.
    command, directory = arena.hostile("while True: say('echo ' + hear())")
    isolation = arena.isolation()
    taken: list[int] = []
    try:
        while (fd := os.open(os.devnull, os.O_RDONLY)) < first_free:
            taken.append(fd)
        os.close(fd)  # the next descriptor opened is `first_free`
        async with open_bot(command, cwd=directory, isolation=isolation, exit_grace=0.1) as bot:
            assert await bot.ask("one", trio.current_time() + 30) == "echo one"
            await trio.sleep(0.2)
            assert await bot.ask("two", trio.current_time() + 30) == "echo two"
    finally:
        for fd in taken:
            os.close(fd)
    arena.assert_nothing_left()
