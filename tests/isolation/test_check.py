"""`referee check`: the documented templates pass it in Python, Java and C, and each common
mistake of a student bot is reported with its hint and a failing exit code."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.cli import main

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "docs" / "templates"
FAST = ["-t", "1", "--grace", "0.2", "--startup", "1.5"]


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # so that no hint is wrapped across lines


@pytest.fixture
def workdir() -> Iterator[Path]:
    # Open to others: with the users level a bot must be able to read its own program.
    path = Path(tempfile.mkdtemp(prefix="check-", dir="/tmp"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def check(
    capsys: pytest.CaptureFixture[str], records: Path, game: str, command: str, *extra: str
) -> tuple[int, str]:
    code = main(["check", game, command, "--records", str(records), *extra])
    return code, capsys.readouterr().out


def test_python_template_passes(capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    bot = f"{sys.executable} {TEMPLATES / 'python' / 'alak_bot.py'}"
    code, out = check(capsys, workdir / "records", "alak", bot)
    assert code == 0, out
    assert "PASS: every game was played cleanly" in out
    assert len(list((workdir / "records").glob("*.jsonl"))) == 4  # 2 games in each colour


def test_java_template_passes(capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no Java compiler here (Debian package default-jdk-headless)")
    shutil.copy(TEMPLATES / "java" / "AlakBot.java", workdir)
    subprocess.run(["javac", "AlakBot.java"], cwd=workdir, check=True)
    for path in workdir.iterdir():
        path.chmod(0o644)
    code, out = check(capsys, workdir / "records", "alak", f"java -cp {workdir} AlakBot", "-n", "1")
    assert code == 0, out
    assert "PASS" in out


def test_c_template_passes(capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("no C compiler here (Debian package gcc)")
    source = TEMPLATES / "c" / "alak_bot.c"
    binary = workdir / "alak_bot"
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", str(binary), str(source)], check=True)
    binary.chmod(0o755)
    code, out = check(capsys, workdir / "records", "alak", str(binary), "-n", "1")
    assert code == 0, out
    assert "PASS" in out


def student_bot(workdir: Path, body: str) -> str:
    """A Python Alak bot with a mistake: `body` runs after a correct move chooser is defined."""
    path = workdir / "bot.py"
    path.write_text(TEMPLATE_HEAD + textwrap.dedent(body))
    path.chmod(0o644)
    return f"{sys.executable} {path}"


# The template's rules, as a student would copy them.
TEMPLATE_HEAD = (
    (TEMPLATES / "python" / "alak_bot.py").read_text().split("def main():")[0]
    + """
board = ["."] * SIZE
def legal(banned):
    return [p for p in range(SIZE) if board[p] == "." and p not in banned]
"""
)


def test_forgetting_to_flush(capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    bot = student_bot(
        workdir,
        """
        out = open(1, "w", buffering=8192, closefd=False)  # stdout to a pipe is block-buffered
        colour = sys.stdin.readline().strip()
        me, other = ("X", "O") if colour == "blue" else ("O", "X")
        banned, mine = [], colour == "blue"
        while True:
            if mine:
                point = legal(banned)[0]
                out.write(LETTERS[point] + "\\n")
                place(board, point, me, other)
            line = sys.stdin.readline().strip()
            if line in ("", "END"):
                break
            banned, mine = place(board, LETTERS.index(line), other, me), True
    """,
    )
    code, out = check(capsys, workdir / "records", "alak", bot, "-n", "1", *FAST)
    assert code == 1
    # Nothing arrived and the bot waits for input: a missing flush is named in both colours.
    assert "no first move as blue (not flushed?)" in out
    assert "move never arrived (not flushed?)" in out  # as orange
    assert "flush stdout after every move" in out


def test_reading_before_the_first_move_as_blue(
    capsys: pytest.CaptureFixture[str], workdir: Path
) -> None:
    # Waits for an opponent's move even as blue, which never comes.
    bot = student_bot(
        workdir,
        """
        colour = sys.stdin.readline().strip()
        me, other = ("X", "O") if colour == "blue" else ("O", "X")
        while True:
            line = sys.stdin.readline().strip()
            if line in ("", "END"):
                break
            banned = place(board, LETTERS.index(line), other, me)
            point = legal(banned)[0]
            print(LETTERS[point], flush=True)
            place(board, point, me, other)
    """,
    )
    code, out = check(capsys, workdir / "records", "alak", bot, "-n", "1", *FAST)
    assert code == 1
    assert "no first move as blue" in out
    assert "answer the line `blue` with your first move at once" in out
    assert "FAIL: 1 problem(s) found" in out  # the game as orange was clean


def test_debug_output_on_stdout(capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    bot = student_bot(
        workdir,
        """
        colour = sys.stdin.readline().strip()
        print(f"debug: I am {colour}, board = {''.join(board)}", flush=True)
        sys.stdin.readline()
    """,
    )
    code, out = check(capsys, workdir / "records", "alak", bot, "-n", "1", *FAST)
    assert code == 1
    assert "not a move" in out
    assert "only moves go to stdout, print everything else to stderr" in out


def test_not_exiting_on_end(capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    bot = student_bot(
        workdir,
        """
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        colour = sys.stdin.readline().strip()
        me, other = ("X", "O") if colour == "blue" else ("O", "X")
        banned, mine = [], colour == "blue"
        while True:
            if mine and legal(banned):
                point = legal(banned)[0]
                print(LETTERS[point], flush=True)
                place(board, point, me, other)
            line = sys.stdin.readline().strip()
            if line in ("", "END"):
                time.sleep(600)  # never exits
            banned, mine = place(board, LETTERS.index(line), other, me), True
    """,
    )
    code, out = check(capsys, workdir / "records", "alak", bot, "-n", "1", *FAST)
    assert code == 1
    assert out.count("does not exit on END") == 2
    assert "exit when the line is END" in out


def test_illegal_move_shows_the_position_and_the_rule(
    capsys: pytest.CaptureFixture[str], workdir: Path
) -> None:
    bot = student_bot(
        workdir,
        """
        colour = sys.stdin.readline().strip()
        if colour == "blue":
            print("a", flush=True)
        while sys.stdin.readline().strip() not in ("", "END"):
            print("a", flush=True)  # the same point again
    """,
    )
    code, out = check(capsys, workdir / "records", "alak", bot, "-n", "1", *FAST)
    assert code == 1
    assert "illegal move" in out
    # The rule broken depends on the opponent's moves: `a` is taken, or banned after a capture.
    assert out.count("'a' is not legal here: a: ") == 2
    assert "point is not empty" in out or "your stone was captured" in out
    assert out.count("a b c d e f g h i j k") == 2  # the board is drawn for each game


def test_a_limit_hit_is_named(capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    bot = student_bot(
        workdir,
        """
        sys.stdin.readline()
        hog = bytearray(3 << 30)
    """,
    )
    code, out = check(capsys, workdir / "records", "alak", bot, "-n", "1", *FAST)
    assert code == 1
    assert "limit hit" in out
    assert "hit the memory limit (1024 MB)" in out


def test_usage_errors(capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    assert main(["check", "chess", "true"]) == 2
    assert main(["check", "alak", "true", "--isolation", "jail"]) == 2
    assert "unknown isolation feature 'jail'" in capsys.readouterr().err
