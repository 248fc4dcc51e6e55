"""Rich views of a league: its leaderboard and the summary of a rating run (pure functions from
the league's query rows to renderables)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from referee.league.queries import VersionRow
from referee.stats.elo import signed_elo
from referee.views.plain import plain


def _elo(value: float | None) -> str:
    return "" if value is None else signed_elo(value, 0)


def leaderboard_table(rows: Sequence[VersionRow], title: str, caption: str | None = None) -> Table:
    """Rank, bot (and version), game, rating with its interval (one bound for an unbeaten or
    winless version), games, score, LOS, and the rating model's flags; and, where a game's
    versions form groups that never met, the group (`component 2`) each version is rated in:
    ranks and ratings compare only inside one."""
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    apart = any(row.component for row in rows)
    for name, justify in (
        ("#", "right"),
        ("bot", "left"),
        ("game", "left"),
        ("Elo", "right"),
        ("interval", "right"),
        ("games", "right"),
        ("score", "right"),
        ("LOS", "right"),
        ("flags", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    if apart:
        table.add_column("rated in", justify="left")
    for row in rows:
        score = f"{row.points / row.games:.0%}" if row.games else ""
        los = "" if row.los_next is None else f"{row.los_next:.1%}"
        cells: list[str | Text] = [
            str(row.rank or ""),
            plain(row.label),
            row.game,
            _elo(row.rating),
            row.interval,
            str(row.games),
            score,
            los,
            row.flags,
        ]
        if apart:
            cells.append(f"component {row.component + 1}")
        table.add_row(*cells)
    return table


def los_table(rows: Sequence[VersionRow], los: Sequence[Sequence[float | None]]) -> Table:
    """`league show --los-matrix`: P(row stronger than column) of the rows shown, in percent;
    empty where nothing compares them (another game, another component)."""
    table = Table(title="Likelihood of superiority (row over column)", title_justify="left")
    table.add_column("")
    for row in rows:
        table.add_column(plain(row.label), justify="right")
    for row, line in zip(rows, los, strict=True):
        table.add_row(plain(row.label), *("" if v is None else f"{v:.0%}" for v in line))
    return table
