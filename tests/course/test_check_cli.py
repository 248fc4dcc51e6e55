"""`referee check` as a student runs it (real subprocesses, piped and on a pseudo-terminal):
findings wrap whole at 80 columns, a missing flush is named in both colours, a bare built-in
name is the built-in bot, and checks started together keep their records apart."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import textwrap
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from protocols.base import Side
from referee.course.check import CheckedGame, Finding, analyse, new_record_dir, opponent_command
from referee.match.settings import MatchSettings
from referee.records import read_record

QUICK = ["-n", "1", "-t", "0.5", "--grace", "0.2", "--startup", "1"]
SETTINGS = MatchSettings(move_timeout=0.5, grace=0.2, startup_allowance=1.0)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
BOX = re.compile(r"[\u2500-\u257f]")  # rich's table and panel lines

# Blue writes its first move but never flushes it; orange answers with debug output.
UNFLUSHED_THEN_DEBUG = """
    import sys
    out = open(1, "w", buffering=8192, closefd=False)  # stdout to a pipe is block-buffered
    colour = sys.stdin.readline().strip()
    if colour == "blue":
        out.write("a\\n")
    else:
        move = sys.stdin.readline().strip()
        print(f"debug: I am {colour} and the opponent played {move}", flush=True)
    sys.stdin.readline()
"""
# Never flushes, in either colour.
NEVER_FLUSHES = """
    import sys
    out = open(1, "w", buffering=8192, closefd=False)
    colour = sys.stdin.readline().strip()
    if colour == "orange":
        sys.stdin.readline()
    out.write("a\\n" if colour == "orange" else "b\\n")
    sys.stdin.readline()
"""
# Answers every turn with a word that is not a move.
NOT_A_MOVE = """
    import sys
    colour = sys.stdin.readline().strip()
    if colour == "orange":
        sys.stdin.readline()
    print("x", flush=True)
    sys.stdin.readline()
"""


@pytest.fixture
def workdir() -> Iterator[Path]:
    # Open to others: with the users level a bot must be able to read its own program.
    path = Path(tempfile.mkdtemp(prefix="check-cli-", dir="/tmp"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def bot(workdir: Path, source: str) -> str:
    path = workdir / "bot.py"
    path.write_text(textwrap.dedent(source))
    path.chmod(0o644)
    return f"{sys.executable} {path}"


def check_argv(command: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "referee", "check", "alak", command, *extra]


def plain_env() -> dict[str, str]:
    """The environment without a width: piped, rich falls back to 80 columns, as in CI."""
    return {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}


def start_piped(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        argv, cwd=cwd, env=plain_env(), text=True,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def run_on_terminal(argv: list[str], cwd: Path, columns: int = 80) -> str:
    """Run with stdout on a pseudo-terminal `columns` wide; everything it showed, ANSI removed."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {**plain_env(), "TERM": "xterm-256color"}
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=slave, stderr=subprocess.DEVNULL, close_fds=True
    )
    os.close(slave)
    chunks: list[bytes] = []
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed: the program ended
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
        process.wait(timeout=120)
    return ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))


def flat(text: str) -> str:
    """The words of `text` with line breaks, box lines and runs of spaces made single spaces."""
    return " ".join(BOX.sub(" ", text).split())


def findings_of(record_dir: Path) -> list[Finding]:
    """The findings `referee check` derives from the records it wrote."""
    found: list[Finding] = []
    for path in sorted(record_dir.glob("check-*.jsonl")):
        number, colour = path.stem.split("-")[1:3]
        checked = CheckedGame(int(number), Side(colour), read_record(path), path)
        found += analyse(checked, SETTINGS)
    return found


def records_folder(output: str, cwd: Path) -> Path:
    found = re.search(r"records: (\S+)", output)
    assert found, output
    return cwd / found.group(1)


def test_findings_wrap_whole_at_80_columns_piped_and_on_a_terminal(workdir: Path) -> None:
    argv = check_argv(bot(workdir, UNFLUSHED_THEN_DEBUG), *QUICK)
    piped = start_piped(argv, workdir)  # both at once: the same second, two record folders
    on_terminal = run_on_terminal(argv, workdir)
    piped_out, _ = piped.communicate(timeout=120)
    assert piped.returncode == 1, piped_out
    folders = set()
    for output in (piped_out, on_terminal):
        boxed = [line for line in output.splitlines() if BOX.search(line)]
        assert max(len(line) for line in boxed) <= 80, output
        folder = records_folder(output, workdir)
        folders.add(folder)
        assert len(list(folder.glob("*.jsonl"))) == 2
        findings = findings_of(folder)
        assert [f.title for f in findings] == ["no first move as blue (not flushed?)", "not a move"]
        for finding in findings:
            for sentence in (finding.title, finding.detail, "hint: " + finding.hint):
                assert flat(sentence) in flat(output), (sentence, output)
        bad_move = findings[1].position  # the board where the debug line came instead of a move
        assert bad_move is not None and flat(bad_move) in flat(output)
    assert len(folders) == 2, folders  # neither check overwrote the other's records


def test_a_missing_flush_is_named_in_both_colours(workdir: Path) -> None:
    result = subprocess.run(
        check_argv(bot(workdir, NEVER_FLUSHES), *QUICK),
        cwd=workdir, env=plain_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout
    output = flat(result.stdout)
    assert "game 1: no first move as blue (not flushed?)" in output
    assert "the bot was waiting for input when its first move was due" in output
    assert "game 2: move never arrived (not flushed?)" in output
    assert "the bot was waiting for input while the referee waited for its move" in output
    assert output.count("not flushed?") == 2


def test_a_bare_builtin_name_is_the_builtin_bot(workdir: Path) -> None:
    extra = ["-n", "1", "--opponent", "search", "--records", "records"]
    result = subprocess.run(
        check_argv(bot(workdir, NOT_A_MOVE), *extra),
        cwd=workdir, env=plain_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    output = flat(result.stdout)
    assert result.returncode == 1, output
    assert "opponent failed" not in output
    assert output.count("not a move") == 2  # the bot's fault in both games, not the opponent's
    as_orange = read_record(workdir / "records" / "check-02-orange.jsonl")
    command = as_orange.header.players[Side.BLUE].command
    assert "-m bots search --game alak " in command and command.endswith(" --seed 3")
    assert as_orange.plies[0].side is Side.BLUE  # the search bot moved


def test_opponent_commands() -> None:
    search = opponent_command("search", "alak", 7)
    assert "-m bots search --game alak " in search and search.endswith(" --seed 7")
    greedy = opponent_command("builtin:greedy", "alak", 7)
    assert greedy.endswith("-m bots greedy --game alak --seed 7")
    assert opponent_command(" search --depth 2", "alak", 7).endswith("--depth 2 --seed 7")
    # Anything else is a command of its own, run as given (it may not understand --seed).
    assert opponent_command("./searcher", "alak", 7) == "./searcher"
    assert opponent_command("python3 search", "alak", 7) == "python3 search"


def test_record_folders_made_in_the_same_second_are_distinct(tmp_path: Path) -> None:
    now = datetime(2025, 1, 2, 3, 4, 5)
    first, second, third = (new_record_dir("alak", tmp_path, now) for _ in range(3))
    assert first.name == "check-alak-20250102-030405"
    assert second.name == "check-alak-20250102-030405-2"
    assert third.name == "check-alak-20250102-030405-3"
    assert all(path.is_dir() and not any(path.iterdir()) for path in (first, second, third))


# Thinks forever over its first move as blue (busy, not waiting for input).
THINKS_FOREVER = """
    import sys, time
    colour = sys.stdin.readline().strip()
    if colour == "orange":
        sys.stdin.readline()
    if colour == "blue":
        time.sleep(60)
    print("a", flush=True)
    sys.stdin.readline()
"""


def test_a_first_move_too_slow_is_told_with_the_start_up_allowance_it_had(workdir: Path) -> None:
    result = subprocess.run(
        check_argv(bot(workdir, THINKS_FOREVER), *QUICK),
        cwd=workdir, env=plain_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout
    findings = findings_of(records_folder(result.stdout, workdir))
    slow = [f for f in findings if f.title == "too slow"]
    assert [f.detail for f in slow] == [
        "no move within 0.5 s per move (+0.2 s grace, +1.0 s for start-up on the first move)"
    ]
