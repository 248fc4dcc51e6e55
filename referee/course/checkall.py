"""`referee course check`'s engine: `referee check` on every collected submission, several at a
time, each student's records in a folder of their own (`work/check/STUDENT/`).

A student is ready when collect made their bot runnable and every check game was clean. Results
arrive one student at a time (`on_student`), so an interrupted run keeps the finished ones.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.course.check import CheckReport, run_check
from referee.course.collect import Submission
from referee.course.scheme import Course
from referee.isolation import IsolationSettings, check_bot_users
from referee.match.host import Host
from referee.match.settings import MatchSettings
from referee.nofollow import make_folder


@dataclass(frozen=True)
class StudentCheck:
    submission: Submission
    report: CheckReport | None = None  # None: not collected, so not checked

    @property
    def student(self) -> str:
        return self.submission.student

    @property
    def ready(self) -> bool:
        return self.report is not None and self.report.clean

    def why(self) -> str:
        """Why the bot is not ready, in one line ("" when it is)."""
        if self.report is None:
            return self.submission.problem or "not collected"
        titles = list(dict.fromkeys(f.title for f in self.report.findings))
        return "; ".join(titles)


def check_settings(course: Course) -> MatchSettings:
    c = course.config
    return MatchSettings(
        **c.time_control.model_dump(), isolation=IsolationSettings(level=c.isolation)
    )


def check_dir(course: Course) -> Path:
    return course.work / "check"


async def check_all(
    course: Course,
    submissions: list[Submission],
    *,
    host: Host,
    on_student: Callable[[StudentCheck], None] | None = None,
    concurrency: int | None = None,
) -> list[StudentCheck]:
    """Check every ready submission (at most `concurrency` at once) on `host` (chosen once,
    for every student's games, for `check_settings(course)`); the others are listed with
    collect's reason."""
    settings = check_settings(course)
    c = course.config.check
    make_folder(check_dir(course))  # never through a planted link, before any check starts
    limiter = trio.CapacityLimiter(concurrency or c.concurrency)
    # Before the first check: two bots a game, each with a user of its own, per check at once.
    check_bot_users(host.isolation, 2 * int(limiter.total_tokens))
    results: list[StudentCheck] = []

    def done(result: StudentCheck) -> None:
        results.append(result)
        if on_student is not None:
            on_student(result)

    async def one(submission: Submission) -> None:
        if not submission.ready or submission.command is None:
            done(StudentCheck(submission))
            return
        records = check_dir(course) / submission.student
        async with limiter:
            shutil.rmtree(records, ignore_errors=True)  # a new check replaces the old one
            make_folder(records)
            report = await run_check(
                course.config.game,
                submission.command,
                settings,
                records,
                host=host,
                games_per_colour=c.games_per_colour,
                opponent=c.opponent,
                cwd=submission.path(course.work),
            )
        done(StudentCheck(submission, report))

    async with trio.open_nursery() as nursery:
        for submission in submissions:
            nursery.start_soon(one, submission)
    return sorted(results, key=lambda r: r.student)
