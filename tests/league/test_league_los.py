"""`league show --los-matrix`: the likelihood of superiority of every pair of the rows shown, in
the table, the CSV and the JSON, from the same fit as the ratings the league stored."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest

from tests.commandline import referee


def _shown(rated: Path, form: str, *more: str) -> str:
    args = ["league", "show", str(rated), "--all-versions", "--los-matrix", "--format", form]
    done = referee(*args, *more, cwd=rated)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_los_matrix_of_the_rows_shown(rated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = json.loads(_shown(rated, "json"))
    matrix = [row["los"] for row in rows]
    assert len(rows) > 3 and all(len(line) == len(rows) for line in matrix)
    for i in range(len(rows)):
        assert matrix[i][i] is None
        for j in range(len(rows)):
            if i != j:  # one game, one component: every pair compares
                assert matrix[i][j] + matrix[j][i] == pytest.approx(1.0, abs=1e-9)
    # Each row against the next: the LOS the league stored when it rated.
    with sqlite3.connect(rated / "league.sqlite") as db:
        stored = db.execute(  # in the table's order (one game here)
            "SELECT los_next FROM ratings ORDER BY component, rank IS NULL, rank, rating DESC"
        ).fetchall()
    assert len(stored) == len(rows)
    for i in range(len(rows) - 1):
        assert matrix[i][i + 1] == pytest.approx(stored[i][0], abs=1e-9), rows[i]["name"]
    # The better rated is the likelier stronger.
    assert all(matrix[0][j] > 0.5 for j in range(1, len(rows)))
    # --top: the matrix of the rows shown only.
    top = json.loads(_shown(rated, "json", "--top", "3"))
    assert [row["los"] for row in top] == [line[:3] for line in matrix[:3]]
    # CSV: a column per row shown, `los 1` against the first.
    table = list(csv.DictReader(io.StringIO(_shown(rated, "csv"))))
    heads = [f"los {k}" for k in range(1, len(rows) + 1)]
    assert list(table[0])[-len(rows) :] == heads
    for line, values in zip(table, matrix, strict=True):
        assert [line[h] for h in heads] == ["" if v is None else str(v) for v in values]
    # The table: the matrix under the leaderboard, in percent.
    monkeypatch.setenv("COLUMNS", "250")
    text = _shown(rated, "table")
    assert "Likelihood of superiority (row over column)" in text
    assert f"{matrix[0][1]:.0%}" in text


def test_without_the_option_the_rows_have_no_los(rated: Path) -> None:
    done = referee("league", "show", str(rated), "--format", "json", cwd=rated)
    assert done.returncode == 0, done.stderr
    assert all("los" not in row for row in json.loads(done.stdout))
