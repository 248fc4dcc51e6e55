"""The time a bot is given by `referee check`: the course's, when it is run in the course's
folder (course.toml, or the course runner's own tournament.toml), else the time control
`referee course new` writes, so that a bot that passes its check does not lose every course game
on time. Real checks of a bot that takes 3 s over its second move."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.course.check_limits import COURSE_TIME_CONTROL, course_limits
from referee.course.scheme import Course
from tests.commandline import referee

TEMPLATE = Path(__file__).resolve().parents[2] / "docs" / "templates" / "python" / "alak_bot.py"
MOVE = "print(LETTERS[point], flush=True)"


def slow_bot(folder: Path) -> str:
    """The Alak template, 3 s over its second move: within 5 s a move, not within 2 s."""
    source = TEMPLATE.read_text()
    assert MOVE in source
    slow = "MOVED.append(1); time.sleep(3.0 if len(MOVED) == 2 else 0); " + MOVE
    source = source.replace("import sys\n", "import sys\nimport time\nMOVED = []\n", 1)
    (folder / "slow.py").write_text(source.replace(MOVE, slow))
    return f"{sys.executable} slow.py"


def check(folder: Path, command: str) -> tuple[int, str]:
    done = referee("check", "alak", command, "-n", "1", cwd=folder)
    return done.returncode, " ".join((done.stdout + done.stderr).split())


def test_outside_a_course_the_course_default_applies(tmp_path: Path) -> None:
    code, said = check(tmp_path, slow_bot(tmp_path))
    assert code == 1, said
    assert "too slow" in said and "no move within 2.0 s per move (+0.5 s grace)" in said
    assert "limits from the defaults of a course" in said


def test_in_a_course_folder_its_time_control_applies(tmp_path: Path) -> None:
    made = referee("course", "new", "course", "-g", "alak", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    course = tmp_path / "course" / "course.toml"
    course.write_text(course.read_text().replace("move_timeout = 2.0", "move_timeout = 4.0"))
    mine = tmp_path / "course" / "mine"  # a folder below the course's
    mine.mkdir()
    code, said = check(mine, slow_bot(mine))
    assert code == 0, said
    assert "4.0 s per move" in said and f"limits from the course's, {course}" in said


def test_the_course_runners_file_gives_its_timeout_and_no_startup(tmp_path: Path) -> None:
    (tmp_path / "tournament.toml").write_text(
        'game = "alak"\n[settings]\ntimeout = 4\n[agents]\nme = "python3 slow.py"\n'
    )
    code, said = check(tmp_path, slow_bot(tmp_path))
    assert code == 0, said
    assert "4.0 s per move, +0.5 s grace, +0.0 s for start-up" in said


def test_a_course_of_another_game_is_named_and_not_used(tmp_path: Path) -> None:
    referee("course", "new", "course", "-g", "lasker-morris", cwd=tmp_path)
    limits = course_limits("alak", tmp_path / "course")
    assert limits.source is None and limits.settings.move_timeout == 2.0
    assert limits.note is not None and "its game is lasker-morris" in limits.note


def test_the_default_is_what_course_new_writes(tmp_path: Path) -> None:
    referee("course", "new", "course", "-g", "alak", cwd=tmp_path)
    written = Course(tmp_path / "course").config.time_control
    assert written == COURSE_TIME_CONTROL
    assert course_limits("alak", tmp_path).settings.move_timeout == written.move_timeout


def test_a_course_file_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    (tmp_path / "tournament.toml").write_text('game = "alak"\n[agents]\n[referee]\nmatch = "x"\n')
    limits = course_limits("alak", tmp_path)
    assert limits.source is None and limits.settings.move_timeout == 2.0
    assert (
        limits.note is not None and "tournament.toml is not used: it cannot be read" in limits.note
    )
    (tmp_path / "course.toml").write_text('name = "c"\ngame = "alak"\nbogus = 1\n')
    limits = course_limits("alak", tmp_path)
    assert limits.note is not None and "course.toml is not used: it cannot be read" in limits.note


def test_a_folder_above_that_cannot_be_looked_into_holds_no_course(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    is_file = Path.is_file

    def refused_above(path: Path) -> bool:
        if path.parent != tmp_path:  # as a user without the right to look into it would be
            raise PermissionError(13, "Permission denied", str(path))
        return is_file(path)

    monkeypatch.setattr(Path, "is_file", refused_above)
    limits = course_limits("alak", tmp_path)
    assert limits.source is None and limits.note is None
    assert limits.settings.move_timeout == COURSE_TIME_CONTROL.move_timeout
