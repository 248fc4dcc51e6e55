"""The grades: the course's grading scheme (`[grades] scheme`) applied to the final, per student,
each naming the version it was earned with; kept in the store, hidden until the staff release
them, and exported as CSV.

`final_grades` works them out with the course's own rules (`referee/course/grades.py`: points
for clean games, faults, rank bands, beating baselines; every pinned student graded, an absent
one on no games) once the final is over, and `save` keeps them (replacing earlier ones, noted
in the audit log). `release` shows them to the students or hides them again, noted too;
`own_grade` is the only way a student's page reads a grade, and it gives none before the
release. `grades_csv` writes them for a spreadsheet, every text cell made safe (`csv_cell`).
"""

from __future__ import annotations

import csv
import fcntl
import io
import os
import sqlite3
from dataclasses import astuple, dataclass
from datetime import datetime
from pathlib import Path

from referee.app.config import load_config
from referee.arena import audit
from referee.arena.final import final_config_path, final_dir, write_whole
from referee.arena.finalists import Entry
from referee.arena.folder import Arena
from referee.arena.rows import Grade
from referee.arena.staff_actions import GRADES_RELEASED, is_on, switch
from referee.arena.store import get_state, snapshot, stamp, transaction
from referee.course.grades import GradeLine, compute_grades
from referee.course.scheme import CourseError, GradingScheme, load_scheme
from referee.printable import csv_cell
from referee.tournament.config import ConfigError, LoadedConfig
from referee.tournament.formats import is_staged, plan_for
from referee.tournament.store import LOCK_NAME, GameState, StoreError, StoreView, open_view

GRADED = "grades_computed_at"  # state: when the grades were last worked out
CSV_NAME = "grades.csv"
COLUMNS = ("username", "name", "version", "points", "rank", "games", "faults", "grade")


def being_played(folder: Path) -> bool:
    """Whether a referee holds the tournament's lock in `folder` now (the server playing the
    final, or `referee arena final`), asked without taking it for longer than the question."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing it lets the shared lock go too
    return False


class GradesError(Exception):
    """Grades that cannot be worked out yet; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Graded:
    """A grade with its student and the version it was earned with."""

    account_id: int
    username: str
    display_name: str
    version_number: int | None  # None: absent from the final
    points: float
    rank: int | None
    games: int
    faults: int
    grade: str
    computed_at: str


@dataclass(frozen=True)
class Worked:
    """Grades worked out from the final, and how many of its games were void (not counted)."""

    grades: list[Grade]
    void: int


def final_grades(arena: Arena, people: list[Entry], now: datetime) -> Worked:
    """Every pinned student's grade from the final (`people`: the finalists' entries);
    `GradesError` while it is not over. Reads files only, not the arena's store."""
    if not people:
        raise GradesError("the versions are not pinned yet: the final is played at the deadline")
    try:
        scheme = load_scheme(arena.path(arena.config.grades.scheme))
        loaded = load_config(final_config_path(arena))
        view = open_view(final_dir(arena))
    except (CourseError, ConfigError, StoreError) as exc:
        raise GradesError(str(exc)) from None
    try:
        lines, void = _graded_lines(arena, view, loaded, scheme, people)
    except StoreError as exc:  # a damaged store: said, like any other reason
        raise GradesError(str(exc)) from None
    finally:
        view.close()
    by_player = {e.player: e for e in people}
    when = stamp(now)
    grades = []
    for line in lines:
        if (entry := by_player.get(line.student)) is not None:
            earned = (entry.account_id, entry.version_id, line.points, line.grade, when)
            grades.append(Grade(*earned, line.rank, line.games, line.faults))
    return Worked(grades, void)


def _graded_lines(
    arena: Arena, view: StoreView, loaded: LoadedConfig, scheme: GradingScheme, people: list[Entry]
) -> tuple[list[GradeLine], int]:
    """The course's grade lines of a final that is over, and its void games."""
    rows = view.games()
    replays = loaded.config.max_replays
    to_play = [
        r
        for r in rows
        if r.state in (GameState.PENDING, GameState.RUNNING)
        or (r.state is GameState.VOID and r.voids <= replays)
    ]
    staged = is_staged(loaded.config.format)
    if to_play or (staged and not plan_for(loaded.config, rows).finished):
        left = f"{len(to_play)} of its {len(rows)} games" if to_play else "its next stage"
        if being_played(final_dir(arena)):
            raise GradesError(
                f"the final is not over ({left} to play): it is being played right now (by the "
                "server, which works the grades out when it is over, or by `referee arena "
                "final`): wait for it to end"
            )
        raise GradesError(
            f"the final is not over ({left} to play): `referee arena final {arena.paths.root}` "
            "plays it"
        )
    absent = [e.player for e in people if e.version_id is None]
    return compute_grades(view, scheme, absent), sum(r.state is GameState.VOID for r in rows)


def save(db: sqlite3.Connection, worked: Worked, now: datetime, actor: int | None) -> None:
    """Keep `worked` as the grades (the earlier ones replaced), noted in the audit log."""
    with transaction(db):
        db.execute("DELETE FROM grades")
        db.executemany(
            f"INSERT INTO grades ({Grade.COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [astuple(g) for g in worked.grades],  # in the order of its COLUMNS
        )
        db.execute("INSERT OR REPLACE INTO state VALUES (?, ?)", (GRADED, stamp(now)))
        detail = f"{worked.void} void games not counted" if worked.void else None
        audit.note(db, now, actor, "compute-grades", f"{len(worked.grades)} students", detail)


def release(db: sqlite3.Connection, now: datetime, actor: int | None, released: bool) -> None:
    """Show the grades to the students (each their own), or hide them again; audited. The
    staff page's switch, so that the page and the command set and read the flag alike."""
    switch(db, now, actor, GRADES_RELEASED, released)


def released(db: sqlite3.Connection) -> bool:
    return is_on(db, GRADES_RELEASED)


def computed_at(db: sqlite3.Connection) -> str | None:
    return get_state(db, GRADED)


_GRADED = (
    "SELECT g.account_id, a.username, a.display_name, v.number, g.points, g.rank, g.games,"
    " g.faults, g.grade, g.computed_at FROM grades g JOIN accounts a ON a.id = g.account_id"
    " LEFT JOIN versions v ON v.id = g.version_id"
)


def all_grades(db: sqlite3.Connection) -> list[Graded]:
    """Every grade, by username: for the staff."""
    return [Graded(*row) for row in db.execute(_GRADED + " ORDER BY a.username")]


def own_grade(db: sqlite3.Connection, account_id: int) -> Graded | None:
    """The account's own grade once the grades are released; None before (or without one)."""
    with snapshot(db):
        if not released(db):
            return None
        row = db.execute(_GRADED + " WHERE g.account_id = ?", (account_id,)).fetchone()
    return None if row is None else Graded(*row)


def export(arena: Arena) -> Path:
    """DIR/grades.csv from the grades kept (readable by its owner alone: grades are private)."""
    path = arena.paths.root / CSV_NAME
    write_whole(path, grades_csv(all_grades(arena.store.writer)), 0o600)
    return path


def grades_csv(grades: list[Graded]) -> str:
    """The grades as CSV, one student a line; names and usernames made safe for spreadsheets."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for g in grades:
        writer.writerow(
            [
                csv_cell(g.username),
                csv_cell(g.display_name),
                "" if g.version_number is None else g.version_number,
                f"{g.points:g}",
                "" if g.rank is None else g.rank,
                g.games,
                g.faults,
                csv_cell(g.grade),
            ]
        )
    return out.getvalue()
