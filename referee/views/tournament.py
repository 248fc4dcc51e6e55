"""Rich views of tournaments: standings (with ratings), head-to-head, games, progress.

Pure functions from data to renderables; the live display and `referee tournament results` use
them, nothing in the core imports them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from protocols.base import Reason, why_ended
from referee.tournament.events import GameFinished
from referee.tournament.report import GameLine, Report, StandingRow, standings_csv, to_csv
from referee.tournament.standings import Standing, ordered_faults

RESULT_STYLE = {"blue": "bold blue", "orange": "bold dark_orange", "draw": "bold", "void": "red"}


def standings_table(standings: Sequence[Standing | StandingRow], limit: int = 0) -> Table:
    """Rank, points, W/D/L (with Elo columns for report rows) and every bot fault.

    The faults are one column, one reason a line with its count ("4 out-of-turn"), most frequent
    first. Eight count columns, or one per reason that occurred, would not fit 80 columns beside
    the Elo interval; one column is narrow, empty for a clean bot, names each fault in the words
    of the records, and never splits a count from its reason when space is short.
    """
    with_elo = bool(standings) and isinstance(standings[0], StandingRow)
    table = Table(title="Standings", show_edge=False, pad_edge=False)
    for header in ("#", "player", "pts", "games", "W", "D", "L"):
        table.add_column(header, justify="left" if header == "player" else "right")
    if with_elo:
        table.add_column("Elo", justify="right")
        table.add_column("95% CI", justify="right")
    table.add_column("faults")
    shown = standings[:limit] if limit else standings
    for s in shown:
        cells = [str(s.rank), s.name, str(s.points), str(s.games), str(s.wins), str(s.draws)]
        cells.append(str(s.losses))
        if isinstance(s, StandingRow):
            cells += _elo_cells(s)
        table.add_row(*cells, Text(faults_text(s.faults), style="red"))
    if len(shown) < len(standings):
        table.caption = f"and {len(standings) - len(shown)} more"
    return table


def faults_text(faults: Mapping[Reason, int]) -> str:
    """Every bot fault that happened, one a line ("4 out-of-turn"), most frequent first."""
    return "\n".join(f"{n} {reason.value}" for reason, n in ordered_faults(faults).items())


def _elo_cells(s: StandingRow) -> list[str]:
    if s.elo is None or s.elo_low is None or s.elo_high is None:
        return ["-", ""]
    return [_signed(s.elo), f"{_signed(s.elo_low)} .. {_signed(s.elo_high)}"]


def _signed(value: float) -> str:
    return f"{round(value):+d}"  # never "-0"


def head_to_head_table(report: Report) -> Table:
    """Row player's wins-draws-losses against each column player."""
    names = [s.name for s in report.standings]
    table = Table(title="Head to head (row vs column: W-D-L)", show_edge=False, pad_edge=False)
    table.add_column("")
    for name in names:
        table.add_column(name, justify="center")
    for row_name in names:
        cells = []
        for col_name in names:
            record = report.head_to_head[row_name].get(col_name)
            cells.append("" if record is None else f"{record.wins}-{record.draws}-{record.losses}")
        table.add_row(row_name, *cells)
    return table


def games_table(games: Iterable[GameLine], directory: str) -> Table:
    """Every game with its record (relative to the tournament's directory)."""
    table = Table(title="Games", show_edge=False, pad_edge=False)
    for header in ("#", "blue", "orange", "state", "result", "reason", "plies", "record"):
        table.add_column(header, justify="right" if header in ("#", "plies") else "left")
    for g in games:
        result = g.winner or ("draw" if g.state == "finished" else "")
        table.add_row(
            str(g.number), g.blue, g.orange, g.state.value, result,
            why_ended(g.reason, g.ending) if g.reason else "", str(g.plies or ""),
            _relative(g.record, directory),
        )  # fmt: skip
    return table


def _relative(path: str | None, directory: str) -> str:
    if path is None:
        return ""
    return os.path.relpath(path, directory) if path.startswith(directory) else path


def finished_table(events: Iterable[GameFinished]) -> Table:
    """The latest finished games, newest first, with their reasons."""
    table = Table(title="Latest games", show_edge=False, pad_edge=False)
    for header in ("#", "blue", "orange", "result", "reason", "plies"):
        table.add_column(header, justify="right" if header in ("#", "plies") else "left")
    for e in events:
        result = e.winner or e.result
        if e.result == "void":
            result = "void, replayed later" if e.replay else "void"
        table.add_row(
            str(e.number), e.blue, e.orange, Text(result, style=RESULT_STYLE[e.result]),
            why_ended(e.reason, e.ending), str(e.plies),
        )  # fmt: skip
    return table


PIPE_WIDTH = 160  # piped output: wide enough that tables are never cut


def print_report(out: Console, report: Report, fmt: str, games: bool) -> None:
    """A tournament's results as a table (cut to no width when piped), CSV or JSON."""
    if fmt == "json":
        out.out(json.dumps(report.model_dump(mode="json"), indent=2), highlight=False)
    elif fmt == "csv":
        text = to_csv(report.games) if games else standings_csv(report.standings)
        out.out(text, end="", highlight=False)
    else:
        if not out.is_terminal:  # piped: do not cut the tables to 80 columns
            out = Console(file=out.file, width=PIPE_WIDTH, soft_wrap=True)
        counts = ", ".join(f"{n} {state.value}" for state, n in report.counts.items() if n)
        out.print(f"[bold]{report.name}[/bold] ({report.game}): {counts}", highlight=False)
        out.print(standings_table(report.standings))
        out.print(
            f"Elo: {report.rating_method}, anchored at {report.rating_anchor}; "
            f"draw parameter {report.draw_parameter:.3f}",
            highlight=False,
        )
        out.print(head_to_head_table(report))
        if games:
            out.print(games_table(report.games, report.directory))
        out.print(f"records: {report.directory}/games/", highlight=False)
