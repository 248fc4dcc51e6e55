"""`referee course new|collect|check|report|grades`: the instructor's workflow in one place.

`new` writes a course folder (course.toml, the grading scheme, submissions/); `collect` unpacks,
builds and lists every submission and writes the tournament config; `check` plays every
collected bot against a built-in bot and reports who is ready (terminal and HTML); after
`referee tournament run`, `report` writes one HTML page per student and an index, and `grades`
the CSV of points and grades. Every command but `new` finds the course from `--course` (default:
the current folder). Ctrl-C keeps everything finished (exit code 130); run the command again.
Exit codes: 0 done (for collect and check: every student ready), 1 some student is not, 2 a
usage or config error.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import trio
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from protocols import UnknownGame, canonical_name
from referee.app.check_students import check_students
from referee.app.config import load_config
from referee.commands import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from referee.course.checkall import StudentCheck
from referee.course.collect import (
    COLLECTED_FILE,
    Submission,
    collect,
    entries,
    load_collected,
    write_tournament_config,
)
from referee.course.feedback import build_feedback
from referee.course.grades import compute_grades, grades_csv
from referee.course.pages import index_page, replay_name, student_name, student_page
from referee.course.scheme import COURSE_FILE, Course, CourseError, load_scheme, write_skeleton
from referee.course.tables import check_table, collect_table, grades_table
from referee.isolation import IsolationUnavailable
from referee.nofollow import make_folder, write_file
from referee.records import RecordError
from referee.replay import load_replay
from referee.tournament.config import ConfigError
from referee.tournament.store import StoreError, StoreView, open_view
from referee.web.html_export import replay_html

EXIT_NOT_READY = 1
T = TypeVar("T")


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = "A course's tournament: collect, check, report and grade (docs/course.md)."
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    new = sub.add_parser("new", help="write a course folder: course.toml and the grading scheme")
    new.add_argument("folder", type=Path)
    new.add_argument("-g", "--game", default="lasker-morris", help="the game (lasker-morris)")
    new.add_argument("--name", default=None, help="the course's name (default: the folder's)")
    new.add_argument("--force", action="store_true", help="overwrite an existing course.toml")
    new.set_defaults(run=run_new)
    collect_parser = sub.add_parser(
        "collect", help="unpack, build and list every submission; write the tournament config"
    )
    collect_parser.add_argument(
        "submissions", type=Path, nargs="?", help="one entry per student (default: course.toml's)"
    )
    collect_parser.add_argument(
        "--fresh", action="store_true", help="collect unchanged entries too"
    )
    collect_parser.set_defaults(run=run_collect)
    check = sub.add_parser("check", help="every collected bot against a built-in bot: who is ready")
    check.set_defaults(run=run_check)
    report = sub.add_parser("report", help="after the tournament: a page per student, an index")
    report.set_defaults(run=run_report)
    grades = sub.add_parser("grades", help="a CSV of points and grades from a grading scheme")
    grades.add_argument("--scheme", type=Path, default=None, help="default: course.toml's")
    grades.add_argument("-o", "--output", type=Path, default=None, help="default: work/grades.csv")
    grades.set_defaults(run=run_grades)
    for each in (collect_parser, check, report, grades):
        each.add_argument(
            "-C", "--course", type=Path, default=Path("."), help="the course folder (.)"
        )
    for each, what in ((collect_parser, "builds"), (check, "checks")):
        each.add_argument(
            "-j",
            "--concurrency",
            type=int,
            default=None,
            help=f"{what} at once ([check] concurrency)",
        )


def _course(args: argparse.Namespace, err: Console) -> Course | None:
    if getattr(args, "concurrency", None) is not None and args.concurrency < 1:
        _say(err, "referee: --concurrency must be at least 1")
        return None
    try:
        return Course(args.course)
    except CourseError as exc:
        err.print(str(exc), markup=False, highlight=False)
        return None


def _run(main: Callable[[], Awaitable[T]]) -> T:
    """`trio.run`, with Ctrl-C as a plain KeyboardInterrupt: inside a nursery it arrives
    wrapped in an exception group."""
    try:
        return trio.run(main)
    except BaseExceptionGroup as group:
        if group.subgroup(KeyboardInterrupt) is not None:
            raise KeyboardInterrupt from None
        raise


def _progress(err: Console) -> Progress:
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
    return Progress(*columns, console=err, transient=True)


def _say(err: Console, text: str) -> None:
    err.print(text, markup=False, highlight=False, soft_wrap=True)


# -- new ---------------------------------------------------------------------------------------


def run_new(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        game = canonical_name(args.game)
    except UnknownGame as exc:
        _say(err, f"referee: {exc}")
        return EXIT_USAGE
    if (args.folder / COURSE_FILE).exists() and not args.force:
        _say(err, f"referee: {args.folder / COURSE_FILE} exists (use --force to overwrite)")
        return EXIT_USAGE
    name = args.name or args.folder.resolve().name
    for path in write_skeleton(args.folder, name, game):
        _say(err, f"wrote {path}")
    _say(err, f"next: put one entry per student in {args.folder / 'submissions'}, then")
    _say(err, f"      referee course collect -C {args.folder}")
    return EXIT_OK


# -- collect -----------------------------------------------------------------------------------


def run_collect(args: argparse.Namespace, out: Console, err: Console) -> int:
    course = _course(args, err)
    if course is None:
        return EXIT_USAGE
    submissions: Path = args.submissions or course.submissions
    if not submissions.is_dir():
        _say(err, f"referee: {submissions} is not a folder")
        return EXIT_USAGE
    total = len(entries(submissions))
    try:
        with _progress(err) as progress:
            task = progress.add_task("collecting", total=total)

            def advance(s: Submission) -> None:
                progress.update(task, advance=1, description=f"{s.student}: {s.status}")

            found = _run(
                lambda: collect(
                    course,
                    submissions,
                    concurrency=args.concurrency or course.config.check.concurrency,
                    on_student=advance,
                    fresh=args.fresh,
                )
            )
    except IsolationUnavailable as exc:
        _say(err, f"referee: {course.path}: isolation: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        kept = load_collected(course.work)
        write_tournament_config(course, list(kept.values()))
        _say(err, f"interrupted: {len(kept)} students kept in {course.work / COLLECTED_FILE}")
        return EXIT_INTERRUPTED
    out.print(collect_table(list(found.values())))
    for s in sorted(found.values(), key=lambda s: s.student):
        if not s.ready:
            _say(err, f"{s.student}: {s.problem}")
    _say(err, f"wrote {course.tournament_config}")
    _say(err, f"next: referee course check -C {args.course}")
    return EXIT_OK if all(s.ready for s in found.values()) else EXIT_NOT_READY


# -- check -------------------------------------------------------------------------------------


def run_check(args: argparse.Namespace, out: Console, err: Console) -> int:
    course = _course(args, err)
    if course is None:
        return EXIT_USAGE
    collected = load_collected(course.work)
    if not collected:
        _say(err, f"referee: nothing collected in {course.work}: run `referee course collect`")
        return EXIT_USAGE
    with _progress(err) as progress:
        task = progress.add_task("checking", total=len(collected))

        def advance(r: StudentCheck) -> None:
            mark = "ready" if r.ready else "not ready"
            progress.update(task, advance=1, description=f"{r.student}: {mark}")

        checked = check_students(
            course, list(collected.values()), concurrency=args.concurrency, on_student=advance
        )
    if checked.refusal is not None:
        _say(err, checked.refusal)
        return EXIT_USAGE
    out.print(check_table(checked.results))
    _say(err, f"wrote {checked.page}")
    if checked.interrupted:
        _say(err, f"interrupted after {len(checked.results)} students: run it again for the rest")
        return EXIT_INTERRUPTED
    return EXIT_OK if all(r.ready for r in checked.results) else EXIT_NOT_READY


# -- report and grades -------------------------------------------------------------------------


def _with_store(
    args: argparse.Namespace, err: Console, use: Callable[[Course, StoreView], T]
) -> T | int:
    course = _course(args, err)
    if course is None:
        return EXIT_USAGE
    try:
        loaded = load_config(course.tournament_config)
        view = open_view(loaded.directory)
    except (ConfigError, StoreError) as exc:
        _say(err, f"referee: {exc}")
        _say(
            err,
            "first: referee course collect, then referee tournament run "
            f"{course.tournament_config}",
        )
        return EXIT_USAGE
    try:
        return use(course, view)
    finally:
        view.close()


def run_report(args: argparse.Namespace, out: Console, err: Console) -> int:
    def write(course: Course, view: StoreView) -> int:
        feedback = build_feedback(view)
        folder = course.work / "report"
        make_folder(folder / "games")  # never through a planted link, as every page below
        make_folder(folder / "students")
        played = [r for r in view.games() if view.record_path(r) is not None]
        try:
            with _progress(err) as progress:
                task = progress.add_task("replays", total=len(played))
                for row in played:
                    path = view.record_path(row)
                    assert path is not None
                    try:
                        html = replay_html(load_replay(path))
                    except (RecordError, OSError) as exc:
                        _say(err, f"game {row.number}: cannot replay {path}: {exc}")
                        continue
                    write_file(folder / replay_name(row.number), html)
                    progress.update(task, advance=1)
        except KeyboardInterrupt:
            _say(err, f"interrupted: the replays written so far are in {folder / 'games'}")
            return EXIT_INTERRUPTED
        for student in feedback.students:
            page = folder / student_name(student.student)
            write_file(page, student_page(feedback, student))
        write_file(folder / "index.html", index_page(feedback))
        _say(err, f"wrote {len(feedback.students)} student pages and {folder / 'index.html'}")
        return EXIT_OK

    return _with_store(args, err, write)


def run_grades(args: argparse.Namespace, out: Console, err: Console) -> int:
    def grade(course: Course, view: StoreView) -> int:
        scheme_path: Path = args.scheme or course.scheme_path
        try:
            scheme = load_scheme(scheme_path)
        except CourseError as exc:
            _say(err, str(exc))
            return EXIT_USAGE
        absent = list(load_collected(course.work))
        lines = compute_grades(view, scheme, absent)
        output: Path = args.output or course.work / "grades.csv"
        write_file(output, grades_csv(lines))
        out.print(grades_table(lines))
        _say(err, f"wrote {output}")
        return EXIT_OK

    return _with_store(args, err, grade)
