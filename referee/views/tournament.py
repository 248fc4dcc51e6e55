"""Rich views of tournaments: standings (with ratings), head-to-head, games, progress, and a
staged format's own tables (group tables, the bracket, Swiss rounds with tie-breaks).

Pure functions from data to renderables; the live display and `referee tournament results` use
them, nothing in the core imports them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from protocols.base import Reason, why_ended
from referee.records import DOUBLE_FORFEIT
from referee.tournament.events import GameFinished
from referee.tournament.formats.base import GroupTable, Plan, Stage, SwissRoundTable, Tie
from referee.tournament.report import (
    GameLine,
    Report,
    StandingRow,
    count_words,
    course_csv,
    rating_note,
    standings_csv,
    to_csv,
)
from referee.tournament.standings import Standing, ordered_faults
from referee.views.plain import plain

RESULT_STYLE = {
    "blue": "bold blue",
    "orange": "bold dark_orange",
    "draw": "bold",
    "double-forfeit": "red",
    "void": "red",
}
# A game without a winner as the tables name it: a double forfeit is a loss for both.
NO_WINNER = {"draw": "draw", "double-forfeit": DOUBLE_FORFEIT}


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
        cells: list[str | Text] = [str(s.rank), plain(s.name), str(s.points), str(s.games)]
        cells += [str(s.wins), str(s.draws), str(s.losses)]
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
        table.add_column(plain(name), justify="center")
    for row_name in names:
        cells = []
        for col_name in names:
            record = report.head_to_head[row_name].get(col_name)
            cells.append("" if record is None else f"{record.wins}-{record.draws}-{record.losses}")
        table.add_row(plain(row_name), *cells)
    return table


def games_table(games: Iterable[GameLine], directory: str) -> Table:
    """Every game with its record (relative to the tournament's directory)."""
    table = Table(title="Games", show_edge=False, pad_edge=False)
    for header in ("#", "blue", "orange", "state", "result", "reason", "plies", "record"):
        table.add_column(header, justify="right" if header in ("#", "plies") else "left")
    for g in games:
        result = g.winner or NO_WINNER.get(g.result or "", "")
        table.add_row(
            str(g.number), plain(g.blue), plain(g.orange), g.state.value, plain(result),
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
        result = e.winner or NO_WINNER.get(e.result, e.result)
        if e.result == "void":
            result = "void, replayed later" if e.replay else "void"
        table.add_row(
            str(e.number), plain(e.blue), plain(e.orange), plain(result, RESULT_STYLE[e.result]),
            why_ended(e.reason, e.ending), str(e.plies),
        )  # fmt: skip
    return table


PIPE_WIDTH = 160  # piped output: wide enough that tables are never cut


def print_report(out: Console, report: Report, fmt: str, games: bool) -> None:
    """A tournament's results as a table (cut to no width when piped), CSV or JSON."""
    if fmt == "json":
        out.out(json.dumps(report.model_dump(mode="json"), indent=2), highlight=False)
    elif fmt == "course-csv":
        out.out(course_csv(report), end="", highlight=False)
    elif fmt == "csv":
        text = to_csv(report.games) if games else standings_csv(report.standings)
        out.out(text, end="", highlight=False)
    else:
        if not out.is_terminal:  # piped: do not cut the tables to 80 columns
            out = Console(file=out.file, width=PIPE_WIDTH, soft_wrap=True)
        counts = ", ".join(count_words(report))
        heading = plain(report.name, "bold")
        out.print(heading.append(f" ({report.game}): {counts}"), highlight=False)
        if report.match is not None:  # the match's own figures, as `referee match` prints them
            out.print("[bold]Match[/bold]", highlight=False)
            for line in report.match.lines:
                out.print(plain(f"  {line}"), highlight=False)
        if report.plan is not None and report.plan.stages[0].kind != "table":
            out.print(plan_view(report.plan))
        out.print(standings_table(report.standings))
        out.print(
            f"{rating_note(report)}; draw parameter {report.draw_parameter:.3f}",
            markup=False,
            highlight=False,
        )
        out.print(head_to_head_table(report))
        if games:
            out.print(games_table(report.games, report.directory))
        out.print(f"records: {report.directory}/games/", highlight=False)


# -- a staged format's own tables --------------------------------------------------------------


def plan_view(plan: Plan, only_current: bool = False) -> RenderableType:
    """Every stage's tables (or, live, the stage being played and any bracket), then the final
    order once the format has one."""
    parts: list[RenderableType] = []
    for stage in plan.stages:
        if only_current and stage.kind == "groups" and stage.name != plan.current:
            continue
        parts.append(stage_view(stage, current=stage.name == plan.current))
    if plan.finished and plan.placings:
        parts.append(final_order_table(plan))
    return Group(*parts)


def final_order_table(plan: Plan) -> Table:
    """The format's final order, each place with what decided it (the standings follow it)."""
    table = Table(title="Final order", show_edge=False, pad_edge=False, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("player", style="bold")
    table.add_column("decided by")
    for place, name in enumerate(plan.placings, 1):
        table.add_row(str(place), plain(name), plain(plan.placing_notes.get(name)))
    return table


def stage_view(stage: Stage, current: bool = False) -> RenderableType:
    title = f"{stage.name}{' (playing)' if current else ''}"
    if stage.kind == "groups":  # side by side, as many as the width holds
        return Columns([group_table(g, f"{title}: {g.name}") for g in stage.groups], padding=(1, 3))
    if stage.kind == "bracket":
        return bracket_table(stage.ties, title)
    if stage.kind == "swiss":
        tables: list[RenderableType] = [swiss_round_table(r) for r in stage.rounds]
        if stage.note:
            tables.append(Text(f"Swiss {stage.note}", style="yellow"))
        return Group(*tables, swiss_standings_table(stage))
    return Text("")


def group_table(group: GroupTable, title: str) -> Table:
    table = Table(title=plain(title), show_edge=False, pad_edge=False, title_justify="left")
    for header in ("#", "player", "games", "W", "D", "L", "pts", "", "note"):
        table.add_column(header, justify="left" if header in ("player", "note") else "right")
    for line in group.lines:
        mark = Text("advances", style="green") if line.advances else Text("")
        table.add_row(
            str(line.position), plain(line.name), str(line.games), str(line.wins),
            str(line.draws), str(line.losses), str(line.points), mark, plain(line.note),
        )  # fmt: skip
    return table


def bracket_table(ties: list[Tie], title: str) -> Table:
    """One line per tie: the two players with their seeds, the points, who went through."""
    table = Table(title=plain(title), show_edge=False, pad_edge=False, title_justify="left")
    for header in ("tie", "higher seed", "lower seed", "points", "through", "by"):
        table.add_column(header, justify="center" if header == "points" else "left")
    for tie in ties:
        score = "" if tie.second is None else f"{tie.first_points}-{tie.second_points}"
        through = plain(tie.winner, "bold green")
        table.add_row(
            plain(tie.label), _seeded(tie.first, tie.first_seed),
            _seeded(tie.second, tie.second_seed), score, through, plain(tie.decided_by),
        )  # fmt: skip
    return table


def _seeded(name: str | None, seed: int | None) -> Text:
    if name is None:
        return Text("(bye)")
    return plain(f"{name} ({seed})" if seed is not None else name)


def swiss_round_table(swiss_round: SwissRoundTable) -> Table:
    title = Text(f"Swiss round {swiss_round.number}")
    if swiss_round.bye:
        title.append(plain(f" (bye: {swiss_round.bye})"))
    table = Table(title=title, show_edge=False, pad_edge=False, title_justify="left")
    for header in ("board", "blue", "orange", "result", "game"):
        table.add_column(header, justify="right" if header in ("board", "game") else "left")
    for board, pair in enumerate(swiss_round.pairs, 1):
        cells = (plain(pair.blue), plain(pair.orange), pair.result)
        table.add_row(str(board), *cells, str(pair.game))
    return table


def swiss_standings_table(stage: Stage) -> Table:
    table = Table(title="Swiss standings", show_edge=False, pad_edge=False, title_justify="left")
    for header in ("#", "player", "score", "Buchholz", "BH cut-1", "S-B", "byes"):
        table.add_column(header, justify="left" if header == "player" else "right")
    for line in stage.standings:
        table.add_row(
            str(line.rank), plain(line.name), _half(line.score), _half(line.buchholz),
            _half(line.buchholz_cut1), _half(line.sonneborn_berger), str(line.byes),
        )  # fmt: skip
    return table


def _half(value: float) -> str:
    return f"{value:g}"
