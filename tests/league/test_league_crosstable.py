"""The crosstable read from the results the index keeps per pair of versions: the same as
counted from the games, as sources come and go, and for an index made before it kept them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from referee.league import queries
from referee.league.index import has_pairs, open_index
from tests.commandline import referee_here

GAME = "tic-tac-toe"
POINTS = {"blue": (1.0, 0.0), "orange": (0.0, 1.0), "draw": (0.5, 0.5)}
Cells = list[list[tuple[float, int] | None]]


def _read(folder: Path) -> tuple[queries.Crosstable, set[str]]:
    """The crosstable as the dashboard reads it, and the tables its queries read."""
    index = open_index(folder, writer=False)
    read: set[str] = set()

    def watch(action: int, table: str | None, *_: object) -> int:
        if action == sqlite3.SQLITE_READ and table:
            read.add(table)
        return sqlite3.SQLITE_OK

    try:
        index.db.set_authorizer(watch)
        return queries.crosstable(index, GAME), read
    finally:
        index.close()


def _from_games(folder: Path, table: queries.Crosstable) -> Cells:
    """The crosstable's cells counted game by game."""
    place = {p.version: k for k, p in enumerate(table.players)}
    cells: Cells = [[None] * len(place) for _ in place]
    with sqlite3.connect(folder / "league.sqlite") as db:
        for blue, orange, result in db.execute("SELECT blue, orange, result FROM games"):
            if blue not in place or orange not in place:
                continue
            i, j = place[blue], place[orange]
            for a, b, points in ((i, j, POINTS[result][0]), (j, i, POINTS[result][1])):
                before = cells[a][b] or (0.0, 0)
                cells[a][b] = (before[0] + points, before[1] + 1)
    return cells


def _pairs_are_the_games(folder: Path) -> None:
    with sqlite3.connect(folder / "league.sqlite") as db:
        kept = db.execute(
            "SELECT first, second, first_wins, second_wins, draws FROM pairs"
        ).fetchall()
        games = db.execute("SELECT blue, orange, result FROM games").fetchall()
    counted: dict[tuple[int, int], list[int]] = {}
    for blue, orange, result in games:
        first, second = sorted((blue, orange))
        won = {"draw": 2, "blue": 0 if blue == first else 1, "orange": 1 if blue == first else 0}
        counted.setdefault((first, second), [0, 0, 0])[won[result]] += 1
    assert kept and sorted(kept) == sorted((*pair, *n) for pair, n in counted.items())


def _games(table: queries.Crosstable) -> int:
    return sum(cell[1] for row in table.cells for cell in row if cell is not None)


def _check(folder: Path) -> queries.Crosstable:
    """The crosstable equals the games' and reads none of them; returns it."""
    table, read = _read(folder)
    assert len(table.players) > 2
    assert table.cells == _from_games(folder, table)
    with sqlite3.connect(folder / "league.sqlite") as db:
        (games,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
    # Every version of this small league is in it: each game counted once for each player.
    assert _games(table) == 2 * games
    assert "pairs" in read and "games" not in read
    _pairs_are_the_games(folder)
    return table


def test_the_crosstable_is_the_games_as_sources_come_and_go(
    tmp_path: Path, sources: list[Path]
) -> None:
    runs = [f"runs/{s.name}" for s in sources]

    def run(*args: str) -> None:
        done = referee_here("league", *args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr

    run("new", "course")
    run("add", "course", *runs[:2])
    run("rate", "course")
    first = _check(tmp_path / "course")
    run("add", "course", runs[2])  # new games
    run("rate", "course")
    added = _check(tmp_path / "course")
    assert _games(added) > _games(first)
    run("remove", "course", runs[0])  # its games leave the counts
    assert 0 < _games(_check(tmp_path / "course")) < _games(added)


def test_an_index_made_before_the_pairs_opens_and_upgrades(rated: Path) -> None:
    now = _check(rated)
    # The index as the referee made it before it kept results per pair.
    with sqlite3.connect(rated / "league.sqlite") as db:
        db.executescript(
            "DROP TRIGGER pairs_insert; DROP TRIGGER pairs_delete; DROP TRIGGER pairs_update;"
            " DROP TABLE pairs;"
        )
    old, read = _read(rated)  # a reader opens it as it is and counts the games
    assert "games" in read and old.cells == now.cells and old.players == now.players
    index = open_index(rated, writer=True)  # a writer makes the pairs from its games
    try:
        assert has_pairs(index.db)
    finally:
        index.close()
    assert _check(rated) == now
    # A part of them left by anything else (a trigger gone) is made again whole.
    with sqlite3.connect(rated / "league.sqlite") as db:
        db.executescript("DROP TRIGGER pairs_delete; DELETE FROM pairs;")
    open_index(rated, writer=True).close()
    assert _check(rated) == now


def test_games_changed_in_place_and_a_version_against_itself(rated: Path) -> None:
    index = open_index(rated, writer=True)  # what no command does yet, the triggers follow
    try:
        with index.db:
            index.db.execute(
                "UPDATE games SET result = CASE result WHEN 'blue' THEN 'draw'"
                " WHEN 'draw' THEN 'orange' ELSE 'blue' END WHERE number % 3 = 0"
            )
            index.db.execute("UPDATE games SET blue = orange, orange = blue WHERE number % 5 = 0")
            index.db.execute("UPDATE games SET orange = blue WHERE number % 7 = 0")
            index.db.execute("DELETE FROM games WHERE number % 11 = 0")
    finally:
        index.close()
    table = _check(rated)
    # A version's games against itself: a point a game of its two sides, both sides counted.
    assert any(table.cells[k][k] is not None for k in range(len(table.players)))
