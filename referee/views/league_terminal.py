"""Rich views of a league: its leaderboard and the summary of a rating run (pure functions from
the league's query rows to renderables)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from referee.league.queries import VersionRow
from referee.stats.elo import signed_elo
from referee.views.plain import plain


def _elo(value: float | None) -> str:
    return "" if value is None else signed_elo(value, 0)


def leaderboard_table(rows: Sequence[VersionRow], title: str) -> Table:
    """Rank, bot (and version), game, rating with its interval (one bound for an unbeaten or
    winless version), games, score, LOS, and the rating model's flags."""
    table = Table(title=title, title_justify="left")
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
    for row in rows:
        score = f"{row.points / row.games:.0%}" if row.games else ""
        los = "" if row.los_next is None else f"{row.los_next:.1%}"
        table.add_row(
            str(row.rank or ""),
            plain(row.label),
            row.game,
            _elo(row.rating),
            row.interval,
            str(row.games),
            score,
            los,
            row.flags,
        )
    return table
