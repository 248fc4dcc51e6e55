"""`referee course grades`'s engine: points and a grade per student from the grading scheme
(`scheme.py`; the default is the `grading.toml` that `course new` writes).

A student's points: `clean` for finishing every game without a fault of their bot (and having
played at least one), `per_fault` for each game lost by a fault, the points of the first rank
band holding their rank among the students (baselines not counted), and for each baseline the
points for more wins than losses against it. Students who were collected but never played get
the points of the scheme for nothing (usually 0), with no rank. Every student gets a grade: the
lowest step of the scheme's grades takes every total below it, negative ones included.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from referee.course.feedback import is_baseline, student_ranks
from referee.course.scheme import BASELINE_PREFIX, GradingScheme
from referee.printable import csv_cell
from referee.tournament.report import finished_results
from referee.tournament.standings import compute_standings, head_to_head
from referee.tournament.store import StoreView

COLUMNS = ("student", "points", "rank", "games", "faults", "grade")


@dataclass(frozen=True)
class GradeLine:
    student: str
    points: float
    rank: int | None  # among the students; None: did not play
    games: int
    faults: int
    grade: str


def grade_of(scheme: GradingScheme, points: float) -> str:
    """The grade of the first step, from the highest `min`, that `points` reach. The lowest
    step also takes every total below its `min` (negative points included): every student has
    a grade, whatever their points. "" only for a scheme without grades."""
    steps = sorted(scheme.grades, key=lambda g: -g.min)
    for step in steps:
        if points >= step.min:
            return step.grade
    return steps[-1].grade if steps else ""


def band_points(scheme: GradingScheme, rank: int, students: int) -> float:
    fraction = rank / students
    return next((b.points for b in scheme.rank if fraction <= b.up_to + 1e-9), 0.0)


def compute_grades(
    view: StoreView, scheme: GradingScheme, absent: Sequence[str] = ()
) -> list[GradeLine]:
    results = finished_results(view.games())
    everybody = compute_standings(view.players(), results)
    ranks = student_ranks(everybody)
    standings = [s for s in everybody if not is_baseline(s.name)]
    h2h = head_to_head(results)
    lines = []
    for s in standings:
        rank = ranks[s.name]
        faults = sum(s.faults.values())
        points = scheme.per_fault * faults
        if s.games and not faults:
            points += scheme.clean
        if s.games:
            points += band_points(scheme, rank, len(standings))
        for baseline, worth in scheme.baselines.items():
            wins, _, losses = h2h.get((s.name, BASELINE_PREFIX + baseline), (0, 0, 0))
            if wins > losses:
                points += worth
        lines.append(GradeLine(s.name, points, rank, s.games, faults, grade_of(scheme, points)))
    played = {line.student for line in lines}
    for student in sorted(set(absent) - played):
        lines.append(GradeLine(student, 0.0, None, 0, 0, grade_of(scheme, 0.0)))
    return lines


def grades_csv(lines: list[GradeLine]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for line in lines:
        rank = "" if line.rank is None else line.rank
        writer.writerow(
            # A student's name is a submission's folder name, chosen by the student.
            [csv_cell(line.student), f"{line.points:g}", rank, line.games, line.faults, line.grade]
        )
    return out.getvalue()
