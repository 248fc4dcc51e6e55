"""`league show --format csv|json`, `league remove`, and league.toml edited in place (its
comments and order kept)."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from pathlib import Path

import pytest

from referee.league.config import load_league
from tests.commandline import referee_here

from .conftest import PLAN

FIELDS = [
    "rank",
    "name",
    "version",
    "rating",
    "low",
    "high",
    "games",
    "score",
    "flags",
    "component",
]


def _games(league: Path) -> int:
    with sqlite3.connect(league / "league.sqlite") as db:
        (n,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
    return int(n)


def test_show_as_csv_and_json_is_the_table_shown(rated: Path) -> None:
    as_json = referee_here(
        "league", "show", str(rated), "--all-versions", "--format", "json", cwd=rated
    )
    assert as_json.returncode == 0, as_json.stderr
    rows = json.loads(as_json.stdout)
    assert rows and all(list(row) == ["game", *FIELDS] for row in rows)
    as_csv = referee_here(
        "league", "show", str(rated), "--all-versions", "--format", "csv", cwd=rated
    )
    assert as_csv.returncode == 0, as_csv.stderr
    table = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert list(table[0]) == ["game", *FIELDS]
    assert len(table) == len(rows)
    for line, row in zip(table, rows, strict=True):
        assert line["name"] == row["name"] and int(line["rank"]) == row["rank"]
        assert float(line["rating"]) == row["rating"]
        assert row["low"] <= row["rating"] <= row["high"]
        assert row["score"] == round(row["score"], 4) and 0 <= row["score"] <= 1
    # The same rows, in the same order, as the index holds them: best first within each game.
    with sqlite3.connect(rated / "league.sqlite") as db:
        ranks = [r for (r,) in db.execute("SELECT rank FROM ratings ORDER BY rank")]
    assert sorted(row["rank"] for row in rows) == ranks
    assert [row["rank"] for row in rows] == sorted(row["rank"] for row in rows)
    versions = {(row["name"], row["version"]) for row in rows}
    assert len(versions) == len(rows)  # every version once, told apart by its number


def test_remove_drops_a_source_and_its_games(rated: Path, sources: list[Path]) -> None:
    before = _games(rated)
    gone = f"../runs/{sources[0].name}"
    removed = referee_here("league", "remove", str(rated), gone, cwd=rated)
    assert removed.returncode == 0, removed.stderr
    assert gone not in load_league(rated).sources
    assert len(load_league(rated).sources) == PLAN.tournaments - 1
    assert 0 < _games(rated) < before
    with sqlite3.connect(rated / "league.sqlite") as db:
        paths = [p for (p,) in db.execute("SELECT path FROM sources")]
        (rated_games,) = db.execute("SELECT SUM(games) FROM ratings").fetchone()
    assert str(sources[0].resolve()) not in paths
    # The ratings shown next are of the games left: each game counts for its two players.
    assert rated_games == 2 * _games(rated)
    unknown = referee_here("league", "remove", str(rated), "../runs/nothing", cwd=rated)
    assert unknown.returncode == 2 and "not a source of the league" in unknown.stderr


def test_add_and_remove_keep_comments_and_order(tmp_path: Path, sources: list[Path]) -> None:
    referee_here("league", "new", "course", cwd=tmp_path)
    path = tmp_path / "course" / "league.toml"
    text = path.read_text()
    text = "# Spring term: weekly ladders.\n" + text.replace(
        "[fit]", "# fewer resamples: the course's laptop\n[fit]"
    )
    text = re.sub(r"(?m)^bootstrap = \d+$", "bootstrap = 20  # resamples", text)
    assert "# resamples" in text
    path.write_text(text)
    added = referee_here(
        "league", "add", "course", *(f"runs/{s.name}" for s in sources), cwd=tmp_path
    )
    assert added.returncode == 0, added.stderr
    removed = referee_here("league", "remove", "course", f"runs/{sources[1].name}", cwd=tmp_path)
    assert removed.returncode == 0, removed.stderr
    after = path.read_text()
    for comment in ("# Spring term: weekly ladders.", "# fewer resamples", "# resamples"):
        assert comment in after
    assert after.index("name =") < after.index("sources =") < after.index("[fit]")
    assert load_league(tmp_path / "course").sources == [
        f"../runs/{s.name}" for s in (sources[0], sources[2])
    ]
    assert load_league(tmp_path / "course").fit.bootstrap == 20


def test_editing_sources_keeps_the_comments_and_layout_inside_the_array(tmp_path: Path) -> None:
    from referee.league.config import edit_sources

    path = tmp_path / "league.toml"
    path.write_text(
        '# top\nname = "lg"   # inline\nsources = [\n  "../t1",  # week 1\n'
        '  "../t2",  # week 2\n]\n\n[fit]\nprior_sd = 1000.0  # keep me\n'
    )
    edit_sources(tmp_path, ["../t1", "../t2", "../t3"])
    assert path.read_text() == (
        '# top\nname = "lg"   # inline\nsources = [\n  "../t1",  # week 1\n  "../t2",  # week 2\n'
        '  "../t3",\n]\n\n[fit]\nprior_sd = 1000.0  # keep me\n'
    )
    edit_sources(tmp_path, ["../t1", "../t3"])  # the entry goes, with its own comment
    assert path.read_text() == (
        '# top\nname = "lg"   # inline\nsources = [\n  "../t1",  # week 1\n  "../t3",\n]\n'
        "\n[fit]\nprior_sd = 1000.0  # keep me\n"
    )
    assert load_league(tmp_path).sources == ["../t1", "../t3"]


def test_a_misspelt_key_in_league_toml_is_named_with_the_one_meant(tmp_path: Path) -> None:
    from referee.league.config import LeagueError

    (tmp_path / "league.toml").write_text('name = "lg"\nsources = []\n\n[fit]\nbootstrp = 3\n')
    with pytest.raises(LeagueError) as refused:
        load_league(tmp_path)
    assert "league.toml:5: fit.bootstrp: unknown setting: did you mean 'bootstrap'?" in str(
        refused.value
    )


def test_show_refuses_a_game_the_league_does_not_have_and_hints_at_add_when_empty(
    tmp_path: Path,
) -> None:
    referee_here("league", "new", "lg", cwd=tmp_path)
    rated = referee_here("league", "rate", "lg", cwd=tmp_path)
    assert rated.returncode == 0, rated.stderr
    empty = referee_here("league", "show", "lg", cwd=tmp_path)
    assert empty.returncode == 0 and "referee league add" in empty.stdout
    nope = referee_here("league", "show", "lg", "--game", "nope", cwd=tmp_path)
    assert nope.returncode == 2
    assert "no game 'nope' in the league (its games: none yet)" in nope.stderr
