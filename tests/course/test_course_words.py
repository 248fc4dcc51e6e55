"""What the course kit tells staff and students says each thing once and means it: a student's
rank is counted as the grades count it, a bot that cannot start is fixed by a new submission
(not by editing a generated file), the check quotes a bot's line and its stderr once, and the
tournament config `collect` writes names folders relative to itself, so the course can move."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path
from typing import Any

import trio

from protocols.base import Reason, Side
from referee.app.config import load_config
from referee.course.check import run_check
from referee.course.collect import collect, load_collected
from referee.course.feedback import build_feedback, time_use
from referee.course.grades import compute_grades, grade_of
from referee.course.pages import student_page
from referee.course.scheme import Course, load_scheme, write_skeleton
from referee.isolation import IsolationSettings
from referee.match.host import choose_host
from referee.match.settings import MatchSettings
from referee.records import GameRecord, Ply, TimeControl
from referee.tournament.roster import Roster
from referee.tournament.store import GameRow, GameState, TournamentInfo
from tests.commandline import referee
from tests.course.kit import CRASHES, PYTHON_BOT, make_course, write
from tests.replay.make_records import header_for

BASIC = MatchSettings(
    move_timeout=2.0,
    grace=0.2,
    startup_allowance=2.0,
    isolation=IsolationSettings(level="basic+root"),
)


class PaperView:
    """A round robin decided on paper, as `build_feedback` and `compute_grades` read a store:
    the built-in bot beats everybody, then ann > ben > cat."""

    def __init__(self) -> None:
        self.names = ["builtin-random", "ann", "ben", "cat"]
        self.rows: list[GameRow] = []
        number = 0
        for i, blue in enumerate(self.names):
            for orange in self.names[i + 1 :]:
                number += 1
                self.rows.append(GameRow(number, 1, blue, orange, number, GameState.FINISHED, 1,
                                         0, Side.BLUE, Reason.GAME_ENDING, "stone-count", None,
                                         9, None, None, None))  # fmt: skip

    def info(self) -> TournamentInfo:
        return TournamentInfo("cup", "alak", {}, {}, "2025-01-01T00:00:00+00:00")

    def players(self) -> list[str]:
        return self.names

    def games(self) -> list[GameRow]:
        return self.rows

    def record_path(self, row: GameRow) -> Path | None:
        return None


def test_a_students_page_counts_its_rank_as_the_grades_do(tmp_path: Path) -> None:
    view: Any = PaperView()
    folder = make_course(tmp_path, java=False, c=False)
    scheme = load_scheme(folder / "grading.toml")
    ranks = {line.student: line.rank for line in compute_grades(view, scheme)}
    assert ranks == {"ann": 1, "ben": 2, "cat": 3}
    feedback = build_feedback(view)
    pages = {s.student: student_page(feedback, s) for s in feedback.students}
    assert "<p>rank 1 of 3 students (2 of 4 with the built-in bots), 4 points" in pages["ann"]
    assert "<p>rank 3 of 3 students (4 of 4 with the built-in bots), 0 points" in pages["cat"]


class FaultyView(PaperView):
    """`PaperView` with twelve more games that cat loses by a crash against the built-in bot:
    24 points of faults, more than its rank band gives (its points are negative)."""

    def __init__(self) -> None:
        super().__init__()
        for number in range(len(self.rows) + 1, len(self.rows) + 13):
            self.rows.append(GameRow(number, 1, "cat", "builtin-random", number,
                                     GameState.FINISHED, 1, 0, Side.ORANGE, Reason.CRASH,
                                     None, "exited with code 1", 0, None, None, None))  # fmt: skip


def test_the_default_scheme_grades_every_student_negative_points_included(
    tmp_path: Path,
) -> None:
    write_skeleton(tmp_path, "cup", "alak")
    scheme = load_scheme(tmp_path / "grading.toml")  # the scheme `course new` writes
    view: Any = FaultyView()
    lines = {line.student: line for line in compute_grades(view, scheme, absent=["dan"])}
    assert lines["cat"].points < 0 and lines["cat"].faults == 12
    assert lines["cat"].grade == "F"
    assert (lines["dan"].points, lines["dan"].grade) == (0, "F")  # never played
    assert all(line.grade for line in lines.values())
    # Each step from its `min` up; below the lowest step's `min`, still the lowest grade.
    steps = [(80, "A"), (79.99, "B"), (60, "B"), (59.99, "C"), (40, "C"), (39.99, "F"),
             (0, "F"), (-0.01, "F"), (-1000, "F")]  # fmt: skip
    assert [(points, grade_of(scheme, points)) for points, _ in steps] == steps


def test_the_scheme_docs_course_md_shows_is_the_one_course_new_writes(tmp_path: Path) -> None:
    write_skeleton(tmp_path, "cup", "alak")
    text = (Path(__file__).parents[2] / "docs" / "course.md").read_text()
    grades = text[text.index("## Grades") :]
    block = grades[grades.index("```toml\n") + len("```toml\n") : grades.index("```\n", 10)]
    shown = tomllib.loads(block)
    assert shown == tomllib.loads((tmp_path / "grading.toml").read_text())


def one_student(tmp_path: Path, files: dict[str, str]) -> Course:
    """A course (isolation basic) whose only submission is alice's."""
    folder = make_course(tmp_path, java=False, c=False)
    text = (
        (folder / "course.toml")
        .read_text()
        .replace('isolation = "auto"', 'isolation = "basic+root"')
    )
    (folder / "course.toml").write_text(text)
    course = Course(folder)
    shutil.rmtree(course.submissions)
    write(course.submissions / "alice", files)
    return course


def test_the_collected_config_names_folders_relative_to_itself_so_the_course_can_move(
    tmp_path: Path,
) -> None:
    course = one_student(tmp_path / "before", {"player.py": PYTHON_BOT})
    trio.run(lambda: collect(course, course.submissions))
    assert 'cwd = "students/alice"' in course.tournament_config.read_text()
    assert load_collected(course.work)["alice"].folder == "students/alice"
    moved = shutil.move(course.path.parent, tmp_path / "after")
    loaded = load_config(Path(moved) / "work" / "tournament.toml")
    folder = Roster.of(loaded).spec("alice", 1).cwd
    assert folder == (Path(moved) / "work" / "students" / "alice").resolve()
    assert folder is not None and (folder / "player.py").is_file()


def test_a_collected_bot_that_cannot_start_is_fixed_by_a_new_submission(tmp_path: Path) -> None:
    course = one_student(tmp_path, {"player.py": CRASHES})
    trio.run(lambda: collect(course, course.submissions))
    done = referee("tournament", "run", str(course.tournament_config), "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert (
        f"alice cannot start. {course.tournament_config} is written by `referee course collect` "
        "from the submissions: fix the bot in a new submission, run `referee course collect` "
        "again, then run again, or add --allow-broken" in said
    )
    assert "Fix the command" not in said


async def test_the_check_quotes_a_crashing_bots_stderr_once(tmp_path: Path) -> None:
    write(tmp_path / "bot", {"player.py": CRASHES})
    report = await run_check("alak", "python3 player.py", BASIC, tmp_path, games_per_colour=1,
                             cwd=tmp_path / "bot", host=choose_host(BASIC.isolation))  # fmt: skip
    crashes = [f for f in report.findings if f.title == "crash"]
    assert len(crashes) == 2
    for finding in crashes:
        assert finding.detail.count("KeyError: 'board'") == 1, finding.detail


async def test_the_check_quotes_a_line_that_is_not_a_move_once(tmp_path: Path) -> None:
    write(tmp_path / "bot", {"player.py": "import sys\nsys.stdin.readline()\nprint('hello')\n"})
    report = await run_check("alak", "python3 player.py", BASIC, tmp_path, games_per_colour=1,
                             cwd=tmp_path / "bot", host=choose_host(BASIC.isolation))  # fmt: skip
    found = [f for f in report.findings if f.title == "not a move"]
    assert found, [f.title for f in report.findings]
    assert found[0].detail == "'hello' is not a point: points are the lowercase letters a..k"


def timed_out(times_ms: list[float], **control: float) -> GameRecord:
    """A record of blue's moves (orange's in between) until blue ran out of time."""
    header = header_for("lasker-morris").model_copy(
        update={"time_control": TimeControl(**{"move_timeout": 2, "grace": 0.5, **control})}
    )
    plies = []
    for i, time_ms in enumerate(times_ms):
        plies.append(Ply(ply=2 * i + 1, side=Side.BLUE, received="x", move="x", time_ms=time_ms))
        plies.append(Ply(ply=2 * i + 2, side=Side.ORANGE, received="y", move="y", time_ms=1.0))
    return GameRecord(header=header, plies=plies, result=None)


def test_a_timeout_is_told_against_the_limit_each_move_had() -> None:
    # The first move had 2 s + 0.5 s grace + 5 s to start; the later ones 2.5 s.
    record = timed_out([6000, 300, 700, 2400], startup_allowance=5)
    assert time_use(record, Side.BLUE) == (
        "4 moves before it: the first 6000 ms (its limit 7.5 s, with 5 s for start-up); the 3 "
        "after it: median 700 ms, slowest 2400 ms (their limit 2.5 s (2 s + 0.5 s grace))"
    )
    assert time_use(timed_out([], startup_allowance=5), Side.BLUE) == (
        "no move was played before the timeout: the first move's limit was 7.5 s (2 s + 0.5 s "
        "grace + 5 s for start-up); later moves' 2.5 s (2 s + 0.5 s grace)"
    )
    clocked = timed_out([6000, 3000], startup_allowance=5, clock_total=10, clock_increment=1)
    assert time_use(clocked, Side.BLUE) == (
        "2 moves before it, 9.0 s in all; the limit: a game clock of 10 s + 1 s a move, 0.5 s "
        "grace a move, and 5 s for start-up on the first, not charged"
    )
