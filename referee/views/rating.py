"""The rating model's table in the terminal (`referee.stats.rating_table`): each component apart,
its ranked rows first, then the rows shown apart (provisional, unbounded, without games), with
every flag named, one-sided intervals as bounds, the LOS against the next row, the kinds'
advantages and margins, the model's notes, and the LOS matrix when asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from referee.stats.rating_table import RatingLine, RatingTable
from referee.views.plain import plain

# Flags that take a row out of the ranking: shown apart, below its component's ranked rows.
_APART = frozenset({"provisional", "unbounded", "alone"})


def signed(value: float) -> str:
    return f"{round(value):+d}"  # never "-0"


def interval_text(line: RatingLine) -> str:
    """The interval as the table shows it: `low .. high`, or the one bound there is."""
    if line.side == "two-sided" and line.low is not None and line.high is not None:
        return f"{signed(line.low)} .. {signed(line.high)}"
    if line.side == "lower" and line.low is not None:
        return f">= {signed(line.low)}"
    if line.side == "upper" and line.high is not None:
        return f"<= {signed(line.high)}"
    return ""


def flag_text(line: RatingLine) -> str:
    return ", ".join(line.flags)


def anchored_words(table: RatingTable) -> str:
    """`referee match --anchor`: each bot's rating on the anchor's scale in one line, its
    interval (one bound after a sweep) and its flags named; the bot held there says so."""
    parts = []
    for row in table.rows:
        if row.rating is None:
            parts.append(f"{row.name}: no game rated yet")
            continue
        # The bot held at the anchor: an interval of no width (to the fit's rounding).
        held = row.low is not None and row.high is not None and row.high - row.low < 0.01
        bound = "held there" if held else interval_text(row)
        notes = ", ".join(x for x in (bound, flag_text(row)) if x)
        parts.append(f"{row.name} {signed(row.rating)}" + (f" ({notes})" if notes else ""))
    sweep = _sweep(table.rows)
    if sweep:
        parts.append(sweep)
    return f"rating model, {table.anchor}: " + "; ".join(parts)


def _sweep(rows: Sequence[RatingLine]) -> str:
    """After a sweep each bot's one bound holds with the other bot where it is shown (`>= +1495`
    beside `<= +1505` is no overlap): the bound on their difference, said outright."""
    if len(rows) != 2:
        return ""
    top, bottom = rows
    if top.side == "upper":
        top, bottom = bottom, top
    if top.side != "lower" or bottom.side != "upper" or top.low is None or bottom.rating is None:
        return ""
    return (
        f"{top.name} - {bottom.name} at least {signed(top.low - bottom.rating)} Elo (each bound "
        "above holds with the other bot where it is shown)"
    )


def rating_view(table: RatingTable) -> RenderableType:
    parts: list[RenderableType] = []
    many = len({row.component for row in table.rows}) > 1
    for component in dict.fromkeys(row.component for row in table.rows):
        rows = [row for row in table.rows if row.component == component]
        ranked = [row for row in rows if not _APART & set(row.flags)]
        apart = [row for row in rows if _APART & set(row.flags)]
        title = "Ratings"
        if many and not table.joined:
            title += f", component {component + 1} (never met the others: not comparable)"
        if ranked:
            parts.append(_rows_table(title, ranked, table.level))
        if apart:  # under the component's title when nobody of it is ranked: no empty table
            parts.append(
                _rows_table("Not ranked" if ranked else f"{title}: not ranked", apart, table.level)
            )
    for kind in table.kinds:
        prior = " (from the prior)" if kind.advantage_from_prior or kind.margin_from_prior else ""
        parts.append(
            Text(
                f"{kind.name}: first-move advantage {signed(kind.advantage)} Elo, draw margin "
                f"{round(kind.draw_margin)} Elo over {kind.games} games{prior}"
            )
        )
    parts.append(Text(f"{table.model}; {table.anchor}; {table.intervals} intervals"))
    parts += [Text(note) for note in table.notes]
    if table.los_names:
        parts.append(los_matrix_view(table))
    return Group(*parts)


def _rows_table(title: str, rows: list[RatingLine], level: float) -> Table:
    table = Table(title=title, show_edge=False, pad_edge=False)
    for header in ("#", "player", "Elo", f"{level:.0%} CI", "games", "score", "LOS next", "flags"):
        table.add_column(header, justify="left" if header in ("player", "flags") else "right")
    for row in rows:
        table.add_row(
            "" if row.rank is None else str(row.rank),
            plain(row.name),
            "" if row.rating is None else signed(row.rating),
            interval_text(row),
            str(row.games),
            f"{row.points:g}/{row.games}" if row.games else "",
            "" if row.los_next is None else f"{row.los_next:.1%}",
            flag_text(row),
        )
    return table


def los_matrix_view(table: RatingTable) -> Table:
    """P(row stronger than column), in percent; empty where nothing compares them."""
    matrix = Table(title="Likelihood of superiority (row over column)", show_edge=False)
    matrix.add_column("")
    for name in table.los_names:
        matrix.add_column(plain(name), justify="right")
    for name, values in zip(table.los_names, table.los_matrix, strict=True):
        cells = ["" if v is None else f"{v:.0%}" for v in values]
        matrix.add_row(plain(name), *cells)
    return matrix
