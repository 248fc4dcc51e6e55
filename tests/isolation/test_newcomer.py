"""Containment on the machine a newcomer has: the bots' Python reached through a private (0700)
home, as with pyenv, a virtualenv or conda under /root, and no bubblewrap on the PATH. At the
default level every attack of an untrusted bot fails, with its verdict, and nothing of it is left;
a Python bot from a virtualenv, from pyenv's shims, or using `pip install --user` plays normally.

Where the referee is not root, bots cannot get users or namespaces of their own at all: these
tests are about what a root referee promises, and say so when skipped."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocols.base import Reason, Side
from referee.isolation import native
from referee.isolation.levels import Feature
from referee.records import read_record
from tests.isolation.arena import MOVES, OPPONENT, PRELUDE, TEST_LIMITS, Arena

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="users and namespaces of their own need a root referee"
)
BLUE, ORANGE = Side.BLUE, Side.ORANGE
TOKEN = f"newcomer-{os.getpid()}"  # what this test's bots write in shared folders is named so
SHARED = ["/etc", "/tmp", "/var/tmp", "/dev/shm", "/run/lock"]


@pytest.fixture(scope="module")
def private_home() -> Iterator[Path]:
    """A home others may not enter (like /root), holding a virtualenv made without pip."""
    home = Path(tempfile.mkdtemp(prefix="newcomer-home-", dir="/tmp"))
    home.chmod(0o700)
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (home / "secret").write_text("root-only secret")
    (home / "secret").chmod(0o600)
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def newcomer(private_home: Path, sandbox_program: str) -> Iterator[Arena]:
    """An arena at the default level whose bots run the private home's virtualenv Python."""
    assert native.native_helper() is not None, "the helper did not compile (is there a cc?)"
    arena = Arena("auto", str(private_home / "venv" / "bin" / "python"), sandbox_program)
    try:
        yield arena
    finally:
        arena.cleanup()


@pytest.fixture
def path_without_bwrap(tmp_path: Path) -> str:
    """The PATH, with every program of it but bwrap (the interpreter's folder first)."""
    folder = tmp_path / "path"
    folder.mkdir()
    for directory in [str(Path(sys.executable).parent), *os.environ["PATH"].split(os.pathsep)]:
        if not os.path.isdir(directory):
            continue
        for entry in os.scandir(directory):
            link = folder / entry.name
            if entry.name != "bwrap" and not link.exists() and not link.is_symlink():
                link.symlink_to(entry.path)
    return str(folder)


def left_in_shared_folders() -> list[str]:
    found = []
    for folder in SHARED:
        with os.scandir(folder) as entries:
            found += [entry.path for entry in entries if entry.name.startswith(TOKEN)]
    return found


def outcome(record: object) -> str:
    result = record.result  # type: ignore[attr-defined]
    assert (result.winner, result.reason) == (ORANGE, Reason.BAD_SYNTAX), result
    return str(result.loser_line)


async def test_a_virtualenv_bot_in_a_private_home_plays_contained(newcomer: Arena) -> None:
    record = await newcomer.play(newcomer.opponent("blue"), newcomer.opponent())
    assert record.result is not None and record.result.reason is not Reason.CRASH
    assert not record.result.void, record.result.detail
    levels_run = {report.isolation for report in record.result.bots.values()}
    assert levels_run == {"sandbox+users+cgroup"} or levels_run == {"sandbox+users"}
    newcomer.assert_nothing_left()


async def test_network_over_tcp_and_udp_is_cut(newcomer: Arena) -> None:
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    try:
        hostile = newcomer.hostile(f"""
            import socket
            start(); hear()
            try:
                socket.create_connection(("127.0.0.1", {tcp.getsockname()[1]}), timeout=3).close()
                tcp = "reached"
            except OSError:
                tcp = "blocked"
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
                    u.sendto(b"{TOKEN}", ("127.0.0.1", {udp.getsockname()[1]}))
                udp = "sent"
            except OSError:
                udp = "blocked"
            say(f"tcp-{{tcp}}-udp-{{udp}}")
        """)
        record = await newcomer.play(hostile, newcomer.opponent())
        udp.setblocking(False)
        with pytest.raises(BlockingIOError):
            udp.recv(64)  # nothing the bot sent arrived
    finally:
        tcp.close()
        udp.close()
    assert outcome(record) in ("tcp-blocked-udp-blocked", "tcp-blocked-udp-sent")
    newcomer.assert_nothing_left()


async def test_files_of_others_records_and_store_are_out_of_sight(
    newcomer: Arena, private_home: Path, tmp_path: Path
) -> None:
    records = tmp_path / "games"
    records.mkdir()
    earlier = records / "0001.jsonl"
    earlier.write_text('{"type": "header"}\n')
    store = records / "tournament.sqlite"
    store.write_bytes(b"SQLite format 3\0")
    opponent = newcomer.opponent()
    hostile = newcomer.hostile(f"""
        def read(path):
            try:
                with open(path) as f:
                    f.read()
                return "read"
            except OSError:
                return "blocked"
        def rewrite(path):
            try:
                with open(path, "a") as f:
                    f.write("forged")
                return "written"
            except OSError:
                return "blocked"
        start(); hear()
        said = [read({str(opponent[1] / "secret")!r}), read({str(private_home / "secret")!r}),
                read("/etc/shadow"), read({str(earlier)!r}), rewrite({str(earlier)!r}),
                read({str(store)!r}), rewrite({str(store)!r})]
        say("-".join(said))
    """)
    record = await newcomer.play(hostile, opponent, record_path=records / "0002.jsonl")
    assert outcome(record) == "-".join(["blocked"] * 7)
    assert earlier.read_text() == '{"type": "header"}\n'
    assert store.read_bytes() == b"SQLite format 3\0"
    assert read_record(records / "0002.jsonl").result is not None  # the referee wrote its own
    newcomer.assert_nothing_left()


async def test_writes_in_shared_folders_stay_private_and_bounded(newcomer: Arena) -> None:
    hostile = newcomer.hostile(f"""
        def write(folder):
            try:
                with open(os.path.join(folder, "{TOKEN}"), "w") as f:
                    f.write("left behind")
                return "w"
            except OSError:
                return "b"
        def fill():
            written = 0
            try:
                with open("/tmp/{TOKEN}-fill", "wb") as f:
                    while written < 4096:
                        f.write(b"x" * (1 << 20))
                        f.flush()
                        written += 1
            except OSError:
                pass
            return written
        start(); hear()
        say("".join(write(folder) for folder in {SHARED!r}) + f"-filled-{{fill()}}")
    """)
    record = await newcomer.play(hostile, newcomer.opponent())
    written, _, filled = outcome(record).partition("-filled-")
    assert written == "bwwww"  # /etc is read-only; the others are the bot's own
    assert int(filled) <= TEST_LIMITS.tmp_mb  # its private folders share the disk limit
    assert left_in_shared_folders() == []
    newcomer.assert_nothing_left()


async def test_a_fifo_in_tmp_does_not_reach_the_opponent(newcomer: Arena) -> None:
    hostile = newcomer.hostile(f"""
        os.mkfifo("/tmp/{TOKEN}.fifo")
        start(); hear(); time.sleep(0.5)
        say("fifo-made")
    """)
    accomplice = OPPONENT.replace(
        "colour = start()",
        f'colour = start()\nnote("fifo-" + ("seen" if os.path.exists("/tmp/{TOKEN}.fifo") '
        'else "unseen"))',
    )
    record = await newcomer.play(hostile, newcomer.opponent(body=accomplice))
    assert outcome(record) == "fifo-made"
    assert record.result is not None
    assert "fifo-unseen" in record.result.bots[ORANGE].stderr_tail
    assert left_in_shared_folders() == []
    newcomer.assert_nothing_left()


async def test_signals_ptrace_and_proc_reach_nothing_outside_its_tree(newcomer: Arena) -> None:
    sentinel = subprocess.Popen(["sleep", "120"])
    try:
        hostile = newcomer.hostile(f"""
            import ctypes, glob
            libc = ctypes.CDLL(None, use_errno=True)
            outside = [{os.getpid()}, {os.getppid()}, {sentinel.pid}]
            def theirs():
                found = []
                for cmd in glob.glob("/proc/[0-9]*/cmdline"):
                    pid = int(cmd.split("/")[2])
                    if pid != os.getpid() and b"opponent.py" in open(cmd, "rb").read():
                        found.append(pid)
                return found
            def kill():
                hit = []
                for pid in outside + theirs():
                    try:
                        os.kill(pid, signal.SIGKILL)
                        hit.append(pid)
                    except OSError:
                        pass
                return "hit" if hit else "blocked"
            def trace():
                for pid in outside + theirs():
                    if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
                        return "attached"
                return "blocked"
            def forge():
                for pid in outside + theirs():
                    try:
                        os.close(os.open(f"/proc/{{pid}}/fd/0", os.O_WRONLY))
                        return "opened"
                    except OSError:
                        pass
                return "blocked"
            start(); hear()
            say(f"kill-{{kill()}}-ptrace-{{trace()}}-proc-{{forge()}}-opponents-{{len(theirs())}}")
        """)
        record = await newcomer.play(hostile, newcomer.opponent())
        assert outcome(record) == "kill-blocked-ptrace-blocked-proc-blocked-opponents-0"
        assert sentinel.poll() is None, "a process outside the bot's tree was killed"
        assert record.result is not None and not record.result.bots[ORANGE].killed
    finally:
        sentinel.kill()
        sentinel.wait()
    newcomer.assert_nothing_left()


async def test_kill_minus_one_reaches_nothing(newcomer: Arena) -> None:
    sentinel = subprocess.Popen(["sleep", "120"])
    try:
        hostile = newcomer.hostile("""
            start(); hear()
            try:
                os.kill(-1, signal.SIGKILL)  # every process it may signal, but itself
                say("kill-reached-some")
            except OSError:
                say("kill-reached-none")
        """)
        record = await newcomer.play(hostile, newcomer.opponent())
        assert sentinel.poll() is None, "kill(-1) reached a process outside the bot's tree"
    finally:
        sentinel.kill()
        sentinel.wait()
    assert outcome(record) == "kill-reached-none"
    assert record.result is not None
    assert record.result.bots[ORANGE].exit_code == 0  # the opponent ended normally, after END
    newcomer.assert_nothing_left()


async def test_pip_install_user_libraries_are_found(
    newcomer: Arena, private_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = private_home / ".local"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site_packages = base / "lib" / version / "site-packages"
    site_packages.mkdir(parents=True, exist_ok=True)
    (site_packages / "newcomer_library.py").write_text("ANSWER = 'found'\n")
    monkeypatch.setattr("site.USER_BASE", str(base))
    monkeypatch.setattr("site.USER_SITE", str(site_packages))
    body = "import newcomer_library\nstart(); hear(); say(newcomer_library.ANSWER)\n"
    directory = newcomer.directory()
    (directory / "bot.py").write_text(PRELUDE.format(moves=MOVES[0::2]) + body)
    # The interpreter itself, not a virtualenv's: Python inside a virtualenv ignores the user's
    # libraries by design (and pip refuses `--user` there), wherever the tests run from.
    python = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    record = await newcomer.play((f"{python} bot.py", directory), newcomer.opponent())
    assert outcome(record) == "found"
    newcomer.assert_nothing_left()


async def test_a_bot_run_through_env_with_a_private_pythonpath_plays(
    newcomer: Arena, private_home: Path
) -> None:
    """`env PYTHONPATH=COPY python -m bot` (how an old version of a bot is run from a copy of
    its code): the program after the assignments and the folders they name are what its view
    shows, both inside the private home."""
    library = private_home / "old-copy"
    library.mkdir(exist_ok=True)
    (library / "newcomer_copy.py").write_text("ANSWER = 'from the copy'\n")
    body = "import newcomer_copy\nstart(); hear(); say(newcomer_copy.ANSWER)\n"
    directory = newcomer.directory()
    (directory / "bot.py").write_text(PRELUDE.format(moves=MOVES[0::2]) + body)
    python = private_home / "venv" / "bin" / "python"
    command = f"env PYTHONPATH={library} {python} bot.py"
    record = await newcomer.play((command, directory), newcomer.opponent())
    assert outcome(record) == "from the copy"
    assert Feature.USERS.value in (record.result.bots[BLUE].isolation or "")  # type: ignore[union-attr]
    newcomer.assert_nothing_left()


def fake_pyenv(home: Path, python: Path) -> Path:
    """A pyenv root in `home` whose `python3` shim runs `python` (pyenv's own shim script, and a
    `pyenv which` that answers like pyenv's)."""
    root = home / ".pyenv"
    (root / "shims").mkdir(parents=True, exist_ok=True)
    (root / "libexec").mkdir(exist_ok=True)
    pyenv = root / "libexec" / "pyenv"
    pyenv.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = which ]; then echo {python}; exit 0; fi\n'
        f'if [ "$1" = exec ]; then shift 2; exec {python} "$@"; fi\n'
        "exit 1\n"
    )
    shim = root / "shims" / "python3"
    shim.write_text(
        textwrap.dedent(f"""\
            #!/usr/bin/env bash
            set -e
            program="${{0##*/}}"
            export PYENV_ROOT="{root}"
            exec "{pyenv}" exec "$program" "$@"
        """)
    )
    for program in (pyenv, shim):
        program.chmod(0o755)
    return shim


async def test_a_bot_started_through_pyenv_shims_plays(newcomer: Arena, private_home: Path) -> None:
    shim = fake_pyenv(private_home, private_home / "venv" / "bin" / "python")
    blue = newcomer.opponent("blue")
    blue = (f"{shim} {blue[0].split(' ', 1)[1]}", blue[1])
    record = await newcomer.play(blue, newcomer.opponent())
    assert record.result is not None and record.result.reason is not Reason.CRASH
    assert not record.result.void, record.result.detail
    assert Feature.USERS.value in (record.result.bots[BLUE].isolation or "")
    newcomer.assert_nothing_left()


def test_without_a_sandbox_the_private_interpreter_is_refused_before_any_game(
    private_home: Path, tmp_path: Path, path_without_bwrap: str
) -> None:
    # No bubblewrap on the PATH and no compiled helper: bots get users of their own but no
    # private view, so their user cannot reach the virtualenv. The run says so and plays nothing.
    python = private_home / "venv" / "bin" / "python"
    (tmp_path / "bot.py").write_text("import sys\nsys.stdin.readline()\nprint('a', flush=True)\n")
    env = {**os.environ, "PATH": path_without_bwrap, "REFEREE_NATIVE_HELPER": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "referee", "play", "alak", "-o", "size=5", "-p1",
         f"{python} bot.py", "-p2", "builtin:random", "--record", str(tmp_path / "g.jsonl")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert f"cannot enter {private_home}, on the way to {python}" in said, said
    assert "apt-get install gcc" in said and "allow_root = true" in said
    assert not (tmp_path / "g.jsonl").exists()


def test_play_in_the_newcomer_configuration(
    private_home: Path, tmp_path: Path, path_without_bwrap: str
) -> None:
    python = private_home / "venv" / "bin" / "python"
    (tmp_path / "bot.py").write_text(
        "import random, sys\n"
        "from string import ascii_lowercase as points\n"
        "colour = sys.stdin.readline().strip()\n"
        "def move():\n"
        "    print(random.choice(points[:5]), flush=True)\n"
        "if colour == 'blue':\n"
        "    move()\n"
        "for line in sys.stdin:\n"
        "    if line.strip() == 'END':\n"
        "        break\n"
        "    move()\n"
    )
    env = {**os.environ, "PATH": path_without_bwrap}
    done = subprocess.run(
        [sys.executable, "-m", "referee", "play", "alak", "-o", "size=5", "-p1",
         f"{python} bot.py", "-p2", "builtin:random", "--record", str(tmp_path / "g.jsonl"),
         "--no-random-assignment", "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stderr.split())
    assert said.startswith("isolation: sandbox+users"), said
    assert "sandbox made by the compiled helper" in said
    record = read_record(tmp_path / "g.jsonl")
    assert record.result is not None and record.result.reason is not Reason.CRASH
    assert not record.result.void, record.result.detail
    assert all("sandbox+users" in (r.isolation or "") for r in record.result.bots.values())


STORE_ATTACKER = """\
import glob, os, sys
def attempt(path, mode):
    try:
        with open(path, mode) as f:
            f.write("forged") if "a" in mode else f.read()
        return "done"
    except OSError:
        return "blocked"
colour = sys.stdin.readline().strip()
folder = {folder!r}
records = glob.glob(os.path.join(folder, "games", "*"))
paths = [os.path.join(folder, "tournament.sqlite"), os.path.join(folder, "games", "0001.jsonl")]
said = {{attempt(p, m) for p in paths for m in ("r", "a")}}
sys.stderr.write(f"records {{len(records)}} {{sorted(said)}}\\n")
print("not-a-move", flush=True)
"""
TOURNAMENT = """\
name = "cup"
game = "alak"
game_options = {{ size = 5 }}
games_per_pairing = 2

[[players]]
name = "attacker"
command = "{python} attacker.py"
cwd = "bots"

[[players]]
name = "random"
command = "builtin:random --seed {{seed}}"
"""


def test_a_tournament_in_the_newcomer_configuration_keeps_its_store_out_of_reach(
    private_home: Path, tmp_path: Path, path_without_bwrap: str
) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "attacker.py").write_text(STORE_ATTACKER.format(folder=str(tmp_path / "cup")))
    python = private_home / "venv" / "bin" / "python"
    (tmp_path / "cup.toml").write_text(TOURNAMENT.format(python=python))
    env = {**os.environ, "PATH": path_without_bwrap}
    run = [sys.executable, "-m", "referee", "tournament"]
    for _ in range(2):  # the second run's attacker sees the first run's store and records
        done = subprocess.run(
            [*run, "run", "cup.toml", "-q", "--allow-broken"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert " ".join(done.stderr.split()).startswith("isolation: sandbox+users")
        (tmp_path / "cup.toml").write_text(
            TOURNAMENT.format(python=python).replace("per_pairing = 2", "per_pairing = 4")
        )
    verified = subprocess.run(
        [*run, "verify", "cup.toml"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    records = sorted((tmp_path / "cup" / "games").glob("*.jsonl"))
    assert len(records) == 4
    for path in records:
        record = read_record(path)
        assert record.result is not None
        for side, report in record.result.bots.items():
            if record.header.players[side].name == "attacker":
                assert "records 0 ['blocked']" in report.stderr_tail, report.stderr_tail
