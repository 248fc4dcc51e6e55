"""`referee check` and `referee course check` as use cases, in this process: a request refused
as a value or prepared once (the host chosen once for every game), then played into values,
with nothing printed; the course's page written as each student's check ends."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio

from referee.app import check_bot as check_bot_module
from referee.app import check_students as check_students_module
from referee.app.check_bot import (
    CheckRefused,
    CheckRequest,
    PreparedCheck,
    check_bot,
    prepare_check,
)
from referee.app.check_students import check_students
from referee.course.collect import collect, load_collected
from referee.course.scheme import Course, write_skeleton
from referee.isolation import IsolationSettings, IsolationUnavailable
from referee.match.host import Host, choose_host
from tests.course.kit import PYTHON_BOT, write


def request(tmp_path: Path, **changes: object) -> CheckRequest:
    (tmp_path / "bot.py").write_text(PYTHON_BOT)
    fields: dict[str, object] = {
        "game": "alak",
        "command": f"{sys.executable} {tmp_path / 'bot.py'}",
        "games_per_colour": 1,
        "opponent": "builtin:random",
        "seed": 1,
        "cwd": tmp_path,
        "records": tmp_path / "records",
        "timeout": 5.0,
        "startup": 5.0,
    }
    fields.update(changes)
    return CheckRequest(**fields)  # type: ignore[arg-type]


def counting_hosts(monkeypatch: pytest.MonkeyPatch, module: object) -> list[Host]:
    """Every host `module` chooses, chosen as it would be."""
    chosen: list[Host] = []

    def choose(settings: IsolationSettings) -> Host:
        chosen.append(choose_host(settings))
        return chosen[-1]

    monkeypatch.setattr(module, "choose_host", choose)
    return chosen


@pytest.mark.parametrize(
    ("changes", "message", "bad_flag"),
    [
        ({"game": "chess"}, "referee check: unknown game", True),
        ({"games_per_colour": 0}, "referee check: --games must be at least 1", True),
        ({"isolation": "nonsense"}, "referee check: unknown isolation feature", True),
        ({"timeout": -1.0}, "referee check: invalid setting", False),
    ],
)
def test_a_check_that_cannot_start_is_refused_as_a_value(
    tmp_path: Path, changes: dict[str, object], message: str, bad_flag: bool
) -> None:
    refused = prepare_check(request(tmp_path, **changes))
    assert isinstance(refused, CheckRefused)
    assert refused.message.startswith(message) and refused.bad_flag is bad_flag
    assert not (tmp_path / "records").exists()  # refused before anything was made


def test_a_check_plays_on_one_host_and_prints_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    chosen = counting_hosts(monkeypatch, check_bot_module)
    prepared = prepare_check(request(tmp_path))
    assert isinstance(prepared, PreparedCheck)
    seen: list[int] = []
    result = check_bot(prepared, on_game=lambda g: seen.append(g.number))
    assert len(chosen) == 1 and prepared.host is chosen[0]  # once, for both games
    assert result.report is not None and result.report.clean, result.report
    assert seen == [1, 2]
    assert result.record_dir == tmp_path / "records"
    assert sorted(p.name for p in result.record_dir.glob("*.jsonl")) == [
        "check-01-blue.jsonl",
        "check-02-orange.jsonl",
    ]
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def course_with(tmp_path: Path, students: list[str]) -> Course:
    write_skeleton(tmp_path / "course", "Test course", "alak")
    course = Course(tmp_path / "course")
    for student in students:
        write(course.submissions / student, {"player.py": PYTHON_BOT})
    trio.run(lambda: collect(course, course.submissions))
    return course


def test_a_course_check_chooses_its_host_once_and_writes_its_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    course = course_with(tmp_path, ["anna", "ben"])
    chosen = counting_hosts(monkeypatch, check_students_module)
    pages: list[str] = []

    def seen(_: object) -> None:  # the page is up to date when each student is told
        pages.append((course.work / "check" / "report.html").read_text())

    collected = list(load_collected(course.work).values())
    checked = check_students(course, collected, on_student=seen)
    assert len(chosen) == 1  # once, for both students' games
    assert [r.student for r in checked.results] == ["anna", "ben"]
    assert all(r.ready for r in checked.results) and not checked.interrupted
    assert checked.refusal is None and checked.page == course.work / "check" / "report.html"
    assert "1 more not checked" in pages[0] and "more not checked" not in pages[1]
    assert "2 of 2 bots are ready" in checked.page.read_text()
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_a_course_check_without_its_isolation_is_refused_as_a_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    course = course_with(tmp_path, ["anna"])

    def unavailable(settings: IsolationSettings) -> Host:
        raise IsolationUnavailable("no sandbox here")

    monkeypatch.setattr(check_students_module, "choose_host", unavailable)
    checked = check_students(course, list(load_collected(course.work).values()))
    assert checked.refusal == f"referee: {course.path}: isolation: no sandbox here"
    assert checked.results == [] and not checked.page.exists()
