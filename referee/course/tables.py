"""The course kit in a terminal: what collect found, who is ready after the check, the grades."""

from __future__ import annotations

from rich.table import Table

from referee.course.checkall import StudentCheck
from referee.course.collect import Submission
from referee.course.grades import GradeLine
from referee.views.plain import plain


def collect_table(found: list[Submission]) -> Table:
    table = Table(title="Submissions", show_edge=False)
    for column in ("student", "status", "command", "build", "hash / problem"):
        table.add_column(column, overflow="fold")
    for s in sorted(found, key=lambda s: s.student):
        last = (s.content_hash or "")[:12] if s.ready else (s.problem or "")
        style = "green" if s.ready else "red"
        cells = (plain(s.student), s.status, plain(s.command), plain(s.build), plain(last))
        table.add_row(*cells, style=style)
    return table


def check_table(results: list[StudentCheck]) -> Table:
    table = Table(title="Bots ready for the tournament", show_edge=False)
    for column in ("student", "status", "games", "why not"):
        table.add_column(column, overflow="fold")
    for r in results:
        status = "ready" if r.ready else "failing" if r.report else "not collected"
        games = str(len(r.report.games)) if r.report else "-"
        style = "green" if r.ready else "red"
        table.add_row(plain(r.student), status, games, plain(r.why()), style=style)
    return table


def grades_table(lines: list[GradeLine]) -> Table:
    table = Table(title="Grades", show_edge=False)
    for column in ("student", "points", "rank", "games", "faults", "grade"):
        table.add_column(column)
    for g in lines:
        rank = "-" if g.rank is None else str(g.rank)
        cells = (f"{g.points:g}", rank, str(g.games), str(g.faults), g.grade)
        table.add_row(plain(g.student), *cells)
    return table
