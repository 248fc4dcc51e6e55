"""`referee check`'s report in a terminal: the heading of the check, its games, the bot's times,
each finding with its hint, and the verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from referee.course.check import CheckReport, Finding, describe_settings, spread
from referee.match.settings import MatchSettings
from referee.views.console import wrapped
from referee.views.plain import plain


def heading(
    command: str,
    game: str,
    games: int,
    level: str,
    settings: MatchSettings,
    course: Path | None = None,
) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold")
    table.add_column()
    table.add_row("bot", plain(command))  # as typed: never read as rich markup
    table.add_row("game", f"{game}: {games} game(s) as blue and {games} as orange")
    table.add_row("isolation", level)
    for key, value in describe_settings(settings).items():
        table.add_row(key, value)
    where = f"the course's, {course}" if course else "the defaults of a course (no course here)"
    table.add_row("limits from", where)
    return table


def games_table(report: CheckReport) -> Table:
    table = Table(title="Games", show_edge=False)
    for column in ("#", "colour", "plies", "result", "how", "isolation"):
        table.add_column(column)
    for g in report.games:
        result = g.record.result
        if result is None:
            outcome, how = "unfinished", ""
        elif result.void:
            outcome, how = "void", result.why
        else:
            # A double forfeit (neither bot started playing) is lost, never a draw.
            outcome = (
                "draw" if result.label == "draw" else "won" if result.winner is g.colour else "lost"
            )
            how = result.why
        style = "green" if g.clean else "red"
        row = [
            str(g.number),
            g.colour.value,
            str(len(g.record.plies)),
            outcome,
            how,
            g.isolation or "",
        ]
        table.add_row(*row, style=style)
    return table


def times_table(report: CheckReport) -> Table:
    table = Table(title="Times of your bot", show_edge=False)
    table.add_column("")
    table.add_column("median", justify="right")
    table.add_column("worst", justify="right")
    rows = [
        ("start-up + first move (as blue)", spread(report.startup)),
        ("time per move", spread(report.move_ms())),
        ("CPU per move", spread(report.cpu_ms())),
    ]
    for label, values in rows:
        median, worst = (f"{v:.1f} ms" for v in values) if values else ("-", "-")
        table.add_row(label, median, worst)
    return table


def finding_panel(finding: Finding) -> Panel:
    # Every sentence whole, at any width: a student may read the report in a CI log.
    # The detail may quote the bot (its line, its last words on stderr): shown, never obeyed.
    parts = [wrapped(plain(finding.detail)), wrapped(Text("hint: " + finding.hint, style="yellow"))]
    if finding.position:
        parts.insert(1, wrapped(plain(finding.position, "cyan", lines=True)))
    return Panel(Group(*parts), title=f"game {finding.game}: {finding.title}", expand=False)


def render_report(report: CheckReport, record_dir: Path) -> Group:
    parts: list[Any] = [games_table(report), times_table(report)]
    parts += [finding_panel(f) for f in report.findings]
    if report.clean:
        verdict = Text("PASS: every game was played cleanly", style="bold green")
    else:
        verdict = Text(f"FAIL: {len(report.findings)} problem(s) found", style="bold red")
    parts += [Text(f"records: {record_dir}", style="dim"), verdict]
    return Group(*parts)
