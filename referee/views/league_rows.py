"""The leaderboard as data, for spreadsheets and scripts: `league show --format csv|json`.

The rows are the table `league show` prints, in its order (best first within each game), with
the same fields, as numbers rather than text: a rating of None (a version the fit could not
place) is an empty CSV cell and a JSON null.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from referee.league.queries import VersionRow

FIELDS = (
    "game", "rank", "name", "version", "rating", "low", "high", "games", "score", "flags",
    "component",
)  # fmt: skip

Value = str | int | float | list[str] | None


def _round(value: float | None) -> float | None:
    # Tenths of an Elo: finer than any interval, and the same figure in CSV and JSON.
    return None if value is None else round(value, 1)


def row_fields(row: VersionRow) -> dict[str, Value]:
    """One version's row: `version` is its number among its bot's versions (1 for the first);
    `score` the share of points (wins and half the draws) over its games; `component` the
    group rated together, numbered from 0 as `tournament results --format json` does."""
    return {
        "game": row.game,
        "rank": row.rank,
        "name": row.name,
        "version": row.number,
        "rating": _round(row.rating),
        "low": _round(row.low),
        "high": _round(row.high),
        "games": row.games,
        "score": round(row.points / row.games, 4) if row.games else None,
        "flags": sorted(row.flags.split()),
        "component": row.component,  # 0 the first; ratings compare only within one
    }


def rows_json(rows: Sequence[VersionRow]) -> str:
    return json.dumps([row_fields(row) for row in rows], indent=1) + "\n"


def rows_csv(rows: Sequence[VersionRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    for row in rows:
        fields = row_fields(row)
        writer.writerow([_cell(fields[name]) for name in FIELDS])
    return out.getvalue()


def _cell(value: Value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(value)  # flags are single words
    return str(value)
