"""A course's pre-flight (`referee course check`): every collected bot checked against a built-in
bot, the host chosen once for all of them, and the check's page (`work/check/report.html`)
rewritten as each student's check ends, so that whatever stops the run, the page lists every
student checked so far.

Nothing here prints: the command shows the progress and renders the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from referee.course.checkall import StudentCheck, check_all, check_dir, check_settings
from referee.course.collect import Submission
from referee.course.pages import check_page
from referee.course.scheme import Course
from referee.isolation import IsolationUnavailable
from referee.match.host import choose_host
from referee.nofollow import write_file


@dataclass
class StudentsChecked:
    """How the course's check went: each student's result so far (by name), the page written,
    whether Ctrl-C ended it, or why it could not start (`refusal`: nothing was checked)."""

    page: Path
    results: list[StudentCheck] = field(default_factory=list)
    interrupted: bool = False
    refusal: str | None = None


def check_students(
    course: Course,
    submissions: list[Submission],
    *,
    concurrency: int | None = None,
    on_student: Callable[[StudentCheck], None] | None = None,
) -> StudentsChecked:
    """Check `submissions` (at most `concurrency` at once; None: the course's), each result
    written to the page and told to `on_student` as it arrives."""
    checked = StudentsChecked(check_dir(course) / "report.html")

    def write_page() -> None:
        checked.results.sort(key=lambda r: r.student)
        waiting = len(submissions) - len(checked.results)
        text = check_page(course.config.name, course.config.game, checked.results, waiting)
        write_file(checked.page, text)  # whole, never through a planted link

    def done(result: StudentCheck) -> None:
        checked.results.append(result)
        write_page()
        if on_student is not None:
            on_student(result)

    try:
        host = choose_host(check_settings(course).isolation)  # once, for every student's games
        trio.run(
            lambda: check_all(
                course, submissions, host=host, on_student=done, concurrency=concurrency
            )
        )
    except IsolationUnavailable as exc:
        checked.refusal = f"referee: {course.path}: isolation: {exc}"
        return checked
    except KeyboardInterrupt:
        checked.interrupted = True
    except BaseExceptionGroup as group:  # Ctrl-C inside the nursery arrives wrapped
        if group.subgroup(KeyboardInterrupt) is None:
            raise
        checked.interrupted = True
    write_page()
    return checked
