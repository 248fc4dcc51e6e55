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
from referee.stats.rating_report import LosMatrix

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


# The LOS matrix of the rows (`--los-matrix`): los[i][j] = P(row i stronger than row j), None
# on the diagonal and where nothing compares the two (another game, another component).
Los = Sequence[Sequence[float | None]]


def los_of_rows(rows: Sequence[VersionRow], matrix: LosMatrix) -> list[list[float | None]]:
    """The model's matrix (its players named by version id) in the order of `rows`."""
    at = {name: k for k, name in enumerate(matrix.names)}

    def value(a: VersionRow, b: VersionRow) -> float | None:
        i, j = at.get(str(a.version)), at.get(str(b.version))
        return None if i is None or j is None else matrix.values[i][j]

    return [[value(a, b) for b in rows] for a in rows]


def rows_json(rows: Sequence[VersionRow], los: Los | None = None) -> str:
    """The rows; with `los`, each with its row of the matrix (`los`, in the rows' order)."""
    found: list[dict[str, object]] = [dict(row_fields(row)) for row in rows]
    if los is not None:
        for fields, line in zip(found, los, strict=True):
            fields["los"] = list(line)
    return json.dumps(found, indent=1) + "\n"


def rows_csv(rows: Sequence[VersionRow], los: Los | None = None) -> str:
    """The rows; with `los`, a column per row (`los 1` against the first row, ...)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    against = [f"los {k}" for k in range(1, len(rows) + 1)] if los is not None else []
    writer.writerow([*FIELDS, *against])
    for k, row in enumerate(rows):
        fields = row_fields(row)
        line = [] if los is None else ["" if v is None else str(v) for v in los[k]]
        writer.writerow([*(_cell(fields[name]) for name in FIELDS), *line])
    return out.getvalue()


def _cell(value: Value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(value)  # flags are single words
    return str(value)
