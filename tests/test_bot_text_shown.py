"""What a bot writes is shown, never obeyed: its stderr, quoted by a crash verdict, shown with
`-d`, quoted by the tournament's start check and by `tournament results --format csv --games`,
reaches the operator with every control sequence written as a visible escape, none of it read as
rich markup, and with no line of its own (a forged `Game over!`). A name a bot's author chose is
shown the same way, and a CSV cell is never a formula."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from protocols.base import Reason
from referee.printable import csv_cell, printable
from referee.records import Result
from referee.views.console import course_result_line
from tests.commandline import referee

# A bot that says all this on stderr, then exits before its first move.
HOSTILE_STDERR = (
    "clear\x1b[2J\x1b[H"  # clear the screen, cursor home
    "\x1b]0;owned window title\x07"  # OSC 0: the window's title
    "\x1b]52;c;cm0gLXJmIH4K\x07"  # OSC 52: the clipboard
    "\nGame over! Winner: blue\n"  # a forged result line, on a line of its own
    "overwritten\rGame over! Winner: blue\n"  # ... or at the start of one, after a return
    "[bold]markup[/bold] [/x]\n"  # rich markup, and a tag rich would raise on
    "\u202eevil \x9b31mred\n"  # a bidi override, a C1 control sequence introducer
)
HOSTILE_BOT = f"import sys\nsys.stderr.write({HOSTILE_STDERR!r})\nsys.stderr.flush()\nsys.exit(3)\n"
RAW = ["\x1b", "\x07", "\x9b", "\u202e", "\r"]
# A name a student could give their folder: a formula, markup and a title sequence.
HOSTILE_NAME = "=1+2[/x]\x1b]0;title\x07"


def assert_shown_not_obeyed(output: str, result_line: str | None = None) -> None:
    for raw in RAW:
        assert raw not in output, f"{raw!r} reached the output:\n{output!r}"
    starts = [line.strip() for line in output.splitlines() if line.strip()]
    forged = [line for line in starts if line.startswith("Game over!") and line != result_line]
    assert not forged, output


def write_bot(folder: Path) -> None:
    (folder / "hostile.py").write_text(HOSTILE_BOT)


def test_a_crash_verdict_quotes_the_stderr_shown_not_obeyed(tmp_path: Path) -> None:
    write_bot(tmp_path)
    for debug in ([], ["-d"]):
        done = referee(
            "play", "tic-tac-toe", "-p1", "python3 hostile.py", "-p2", "builtin:random",
            "--no-random-assignment", *debug, cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout == "Game over! Winner: orange\n"
        assert_shown_not_obeyed(done.stderr)
        shown = " ".join(done.stderr.replace("│", " ").split())  # the panel's lines joined
        assert "wins by crash" in shown
        # The last words, escaped on one line: the markup as written, the controls as escapes.
        said = "its stderr ends: overwritten\\x0dGame over! Winner: blue | [bold]markup[/bold] [/x]"
        assert said in shown
        assert "\\u202eevil \\x9b31mred" in shown
    # With -d, the whole tail, line by line inside its panel.
    assert "clear\\x1b[2J\\x1b[H\\x1b]0;owned window title\\x07\\x1b]52;c;" in done.stderr
    assert "│ Game over! Winner: blue" in done.stderr


CONFIG = """\
name = "cup"
game = "tic-tac-toe"
[[players]]
name = "=1+2[/x]\\u001b]0;title\\u0007"
command = "python3 hostile.py"
[[players]]
name = "a"
command = "builtin:random"
[[players]]
name = "b"
command = "builtin:random"
"""


def test_the_start_check_the_tables_and_the_csv_show_bot_text_not_obey_it(
    tmp_path: Path,
) -> None:
    write_bot(tmp_path)
    (tmp_path / "cup.toml").write_text(CONFIG)
    refused = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert_shown_not_obeyed(refused.stderr)
    assert "=1+2[/x]\\x1b]0;title\\x07: cannot start: " in refused.stderr
    assert "overwritten\\x0dGame over! Winner: blue | [bold]markup[/bold] [/x]" in refused.stderr

    played = referee("tournament", "run", "cup.toml", "-q", "--allow-broken", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert_shown_not_obeyed(played.stderr + played.stdout)

    table = referee("tournament", "results", "cup.toml", "--games", cwd=tmp_path)
    assert table.returncode == 0, table.stderr  # rich did not raise on the name's [/x]
    assert_shown_not_obeyed(table.stdout)
    assert "=1+2[/x]\\x1b]0;title\\x07" in table.stdout

    games = referee("tournament", "results", "cup.toml", "--format", "csv", "--games", cwd=tmp_path)
    standings = referee("tournament", "results", "cup.toml", "--format", "csv", cwd=tmp_path)
    for done in (games, standings):
        assert done.returncode == 0, done.stderr
        assert_shown_not_obeyed(done.stdout)
        assert_no_formula(done.stdout)
    rows = list(csv.DictReader(io.StringIO(games.stdout)))
    assert SHOWN_NAME in {row["blue"] for row in rows} | {row["orange"] for row in rows}
    crashes = [row["detail"] for row in rows if row["reason"] == "crash"]
    assert len(crashes) == 4 and all("\\u202eevil \\x9b31mred" in d for d in crashes)
    assert SHOWN_NAME in {row["name"] for row in csv.DictReader(io.StringIO(standings.stdout))}


SHOWN_NAME = "'=1+2[/x]\\x1b]0;title\\x07"  # escaped, and quoted away from being a formula
NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def assert_no_formula(text: str) -> None:
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@")) or NUMBER.match(cell), cell


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text", "plain text"),
        ("a\x1b[2Jb", "a\\x1b[2Jb"),
        ("\x1b]52;c;eA==\x07", "\\x1b]52;c;eA==\\x07"),
        ("one\ntwo\tthree\r", "one\\x0atwo\\x09three\\x0d"),
        ("\x9b31m\x85", "\\x9b31m\\x85"),
        ("\u202eabc\u2066\u200f", "\\u202eabc\\u2066\\u200f"),
        ("a\u2028b\u2029c", "a\\u2028b\\u2029c"),
        ("bad \udcff byte", "bad \\udcff byte"),
        ("émoji ✓ 漢字 [bold]", "émoji ✓ 漢字 [bold]"),
    ],
)
def test_printable_escapes_what_a_terminal_would_obey(text: str, shown: str) -> None:
    assert printable(text) == shown
    assert printable(shown) == shown  # escaping twice changes nothing


def test_printable_keeps_lines_when_asked() -> None:
    assert printable("a\r\nb\tc\n\x1b[2J\rd", lines=True) == "a\nb\tc\n\\x1b[2J\\x0dd"
    assert printable("x\x0by\x0cz\x1c\x85", lines=True).splitlines() == ["x\\x0by\\x0cz\\x1c\\x85"]


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1+2", "'+1+2"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "\\x09x"),
        ("-3", "-3"),
        ("-0.5", "-0.5"),
        ("alice", "alice"),
        (7, 7),
        (None, None),
    ],
)
def test_a_csv_cell_is_never_a_formula(value: object, cell: object) -> None:
    assert csv_cell(value) == cell


def test_referee_check_shows_the_bot_and_its_stderr_not_obey_them(tmp_path: Path) -> None:
    (tmp_path / "[bold]bot.py").write_text(HOSTILE_BOT)
    done = referee("check", "tic-tac-toe", "python3 [bold]bot.py", "-n", "1", cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # it crashed: a problem found, reported
    assert_shown_not_obeyed(done.stdout + done.stderr)
    shown = " ".join((done.stdout + done.stderr).replace("│", " ").split())
    assert "bot python3 [bold]bot.py" in shown  # the command as typed, not read as markup
    assert "overwritten\\x0dGame over! Winner: blue | [bold]markup[/bold] [/x]" in shown


def test_a_void_games_result_line_shows_its_detail_escaped() -> None:
    # A machine's failure may quote what it could not start: a path a student chose.
    detail = "blue: cannot start a process (bots/\x1b]0;title\x07/main.py: \x1b[2J)"
    result = Result(
        winner=None,
        reason=Reason.INFRASTRUCTURE,
        detail=detail,
        plies=0,
        void=True,
        finished_at=datetime.now(UTC),
    )
    line = course_result_line(result)
    assert_shown_not_obeyed(line, result_line=line)
    assert line == (
        "Game over! Void by infrastructure: blue: cannot start a process "
        "(bots/\\x1b]0;title\\x07/main.py: \\x1b[2J)"
    )
