"""`referee check` keeps the checked bot to its own files in every layout the tool writes: run
from a course's folder, from its work or submissions folder, or beside another tournament, the
bot sees none of the other students' code, the grades, the course's files or another
tournament's bots and config; run from its own folder, all of that folder; its records, even
written where it runs, are hidden. Every bot here is a
spy (tests/isolation/test_bot_folders.py): as blue, its first line lists every file below the
test's folder that it could read something from, and the game ends on that line."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from protocols.base import Side
from referee.course.check import run_check
from referee.course.scheme import write_skeleton
from referee.isolation.levels import IsolationSettings
from referee.match.host import choose_host
from referee.match.settings import MatchSettings
from tests.isolation.test_bot_folders import spy

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="the compiled helper makes the sandbox only for a root referee"
)

TOURNAMENT = '[[players]]\nname = "bob"\ncommand = "python3 main.py"\ncwd = "students/bob"\n'


async def seen_by(command: str, cwd: Path, root: Path, sandbox_program: str) -> set[str]:
    """What the checked bot, as blue, read below `root`."""
    settings = MatchSettings(isolation=IsolationSettings(sandbox_program=sandbox_program))
    report = await run_check(
        "alak",
        f"{sys.executable} {command}",
        settings,
        root.parent / "records",
        games_per_colour=1,
        cwd=cwd,
        host=choose_host(settings.isolation),
    )
    blue = next(g for g in report.games if g.colour is Side.BLUE)
    assert blue.record.result is not None and blue.record.result.loser_line, blue.record.result
    return set(blue.record.result.loser_line.split("|"))


def course(root: Path) -> Path:
    """A course folder as `referee course new` and `collect` leave it, alice's spy in it."""
    write_skeleton(root, "c", "alak")  # course.toml, grading.toml, submissions/
    for folder in ("submissions", "work/students"):
        spy(root / folder / "alice" / "main.py", root)
        (root / folder / "bob").mkdir(parents=True, exist_ok=True)
        (root / folder / "bob" / "main.py").write_text("print('bob')\n")
    (root / "submissions" / "alice" / "book.txt").write_text("alice's own book")
    (root / "submissions" / "notes.txt").write_text("the instructor's notes")
    (root / "work" / "grades.csv").write_text("alice,A\nbob,B\n")
    (root / "work" / "collected.json").write_text("{}")
    (root / "work" / "tournament.toml").write_text(TOURNAMENT)
    return root


async def test_from_a_course_folder_only_its_own_submission(
    tmp_path: Path, sandbox_program: str
) -> None:
    root = course(tmp_path / "course")
    seen = await seen_by("submissions/alice/main.py", root, root, sandbox_program)
    assert seen == {"submissions/alice/main.py", "submissions/alice/book.txt"}


async def test_from_a_course_work_folder_only_its_own_folder(
    tmp_path: Path, sandbox_program: str
) -> None:
    root = course(tmp_path / "course")
    seen = await seen_by("students/alice/main.py", root / "work", root, sandbox_program)
    assert seen == {"work/students/alice/main.py"}


async def test_from_the_submissions_only_its_own_submission(
    tmp_path: Path, sandbox_program: str
) -> None:
    root = course(tmp_path / "course")
    seen = await seen_by("alice/main.py", root / "submissions", root, sandbox_program)
    assert seen == {"submissions/alice/main.py", "submissions/alice/book.txt"}


async def test_from_its_own_folder_all_of_it(tmp_path: Path, sandbox_program: str) -> None:
    root = course(tmp_path / "course")
    seen = await seen_by("main.py", root / "submissions" / "alice", root, sandbox_program)
    assert seen == {"submissions/alice/main.py", "submissions/alice/book.txt"}


async def test_a_students_own_folder_all_of_it_whatever_its_program_lies_in(
    tmp_path: Path, sandbox_program: str
) -> None:
    # As `referee course check` runs it: in the student's folder, its program below it, beside
    # its data and a tournament config of its own (a folder of its own that looks like a bot,
    # tools/, is hidden as under `play`).
    root = course(tmp_path / "course")
    alice = root / "work" / "students" / "alice"
    spy(alice / "src" / "main.py", root)
    (alice / "data").mkdir()
    (alice / "data" / "book.txt").write_text("alice's book")
    (alice / "tournament.toml").write_text(TOURNAMENT)  # the student's own, of its versions
    (alice / "tools").mkdir()
    (alice / "tools" / "gen.py").write_text("print('a tool')\n")
    seen = await seen_by("src/main.py", alice, root, sandbox_program)
    own = ("main.py", "src/main.py", "data/book.txt", "tournament.toml")
    assert seen == {f"work/students/alice/{path}" for path in own}


async def test_beside_another_tournament_none_of_it(tmp_path: Path, sandbox_program: str) -> None:
    spy(tmp_path / "mine" / "main.py", tmp_path)
    (tmp_path / "notes.txt").write_text("the student's own notes")
    other = tmp_path / "t1"
    (other / "students" / "bob").mkdir(parents=True)
    (other / "students" / "bob" / "main.py").write_text("print('bob')\n")
    (other / "secret.txt").write_text("no bot's")
    (other / "tournament.toml").write_text(TOURNAMENT)
    seen = await seen_by("mine/main.py", tmp_path, tmp_path, sandbox_program)
    assert seen == {"mine/main.py", "notes.txt"}


async def test_in_a_tournament_folder_only_its_own_bot_folder(
    tmp_path: Path, sandbox_program: str
) -> None:
    # As `tournament new bots/` leaves it: the config beside the bots' folders and what else
    # lay loose among them.
    spy(tmp_path / "bots" / "alice" / "main.py", tmp_path)
    (tmp_path / "bots" / "bob").mkdir()
    (tmp_path / "bots" / "bob" / "main.py").write_text("print('bob')\n")
    (tmp_path / "bots" / "secret.txt").write_text("no bot's")
    (tmp_path / "tournament.toml").write_text(TOURNAMENT)
    seen = await seen_by("bots/alice/main.py", tmp_path, tmp_path, sandbox_program)
    assert seen == {"bots/alice/main.py"}


async def test_records_written_where_it_runs_are_hidden(
    tmp_path: Path, sandbox_program: str
) -> None:
    # `referee check --records .`: the records' folder is the one the bot runs in, which
    # cannot be hidden from it; each record is hidden by its own path.
    spy(tmp_path / "main.py", tmp_path)
    settings = MatchSettings(isolation=IsolationSettings(sandbox_program=sandbox_program))
    report = await run_check(
        "alak",
        f"{sys.executable} main.py",
        settings,
        tmp_path,
        games_per_colour=1,
        cwd=tmp_path,
        host=choose_host(settings.isolation),
    )
    blue = next(g for g in report.games if g.colour is Side.BLUE)
    assert blue.record.result is not None
    assert blue.record.result.loser_line == "main.py"
    assert (tmp_path / "check-01-blue.jsonl").is_file()
