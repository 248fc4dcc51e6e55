"""What a league rates is what `referee tournament verify` accepts: a record whose hash chain
breaks, whose final hash is not the one its store kept, whose moves do not give the stored
result, or that has no result is refused and named (source and game), never rated; a game read
twice (a copied folder) counts once and is named."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from urllib.request import urlopen

import pytest

from referee.league.config import FitSettings, LeagueError, load_league, save_league
from referee.league.discovery import SyncReport, sync
from referee.league.index import open_index
from referee.league.rating import rate_league
from tests.commandline import referee_here
from tests.replay.make_records import strip_chain

from .conftest import PLAN, serve_league_in_thread

PER_SOURCE = PLAN.games // PLAN.tournaments


def read(league: Path) -> SyncReport:
    index = open_index(league, writer=True)
    try:
        return sync(index, league, load_league(league))
    finally:
        index.close()


def counts(league: Path) -> tuple[int, int, list[tuple[str, int, str]]]:
    """Games, versions, and the refused games (source folder's name, game, problem)."""
    index = open_index(league, writer=False)
    try:
        games = index.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        versions = index.db.execute("SELECT COUNT(*) FROM versions").fetchone()[0]
        refused = [
            (Path(r.source).name, r.number, r.problem)
            for r in index.refused()
            if r.kind == "refused"
        ]
    finally:
        index.close()
    return games, versions, refused


def test_a_copied_folder_counts_once(league: Path, sources: list[Path]) -> None:
    copy = sources[0].parent / "copy-of-t01"
    shutil.copytree(sources[0], copy)
    config = load_league(league)
    save_league(
        league, config.model_copy(update={"sources": [*config.sources, "../runs/copy-of-t01"]})
    )
    report = read(league)
    games, _, refused = counts(league)
    assert games == PLAN.games
    assert len(report.copies) == PER_SOURCE and refused == []
    assert f"{copy}: game 1 is game 1 of {sources[0]}" in report.copies[0]
    assert read(league).copies == []  # known: not read again, not rated twice
    assert counts(league)[0] == PLAN.games
    # Without the original, the copy's games are the ones counted.
    save_league(
        league, config.model_copy(update={"sources": [*config.sources[1:], "../runs/copy-of-t01"]})
    )
    read(league)
    assert counts(league)[0] == PLAN.games


def flip_winner(source: Path, number: int) -> None:
    """A game's winner changed in its store: a draw made a win, a win the other side's."""
    db = sqlite3.connect(source / "tournament.sqlite")
    (winner,) = db.execute("SELECT winner FROM games WHERE number = ?", (number,)).fetchone()
    flipped = {"blue": "orange", "orange": "blue", None: "blue"}[winner]
    with db:
        db.execute("UPDATE games SET winner = ? WHERE number = ?", (flipped, number))
    db.close()


def _tampered_league(league: Path, sources: list[Path]) -> dict[int, str]:
    """Four games of the first tournament changed after the fact: the problem each must get."""
    games = sources[0] / "games"
    # Game 1's record replaced by a record of another tournament's game (a resubmitted bot's
    # second version among its players: phantom versions if it were read).
    shutil.copyfile(sources[-1] / "games" / "0005.jsonl", games / "0001.jsonl")
    # Game 2: a player's content hash edited in the header.
    lines = (games / "0002.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    header["players"]["blue"]["content_hash"] = "0" * 64
    (games / "0002.jsonl").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    # Game 3: the winner flipped in the store.
    flip_winner(sources[0], 3)
    # Game 4: the record cut after its header.
    first = (games / "0004.jsonl").read_text().splitlines()[0]
    (games / "0004.jsonl").write_text(first + "\n")
    return {
        1: "the record's final hash is not the one the store kept",
        2: "the record was edited after it was written",
        3: "the store",
        4: "unfinished: the record has no result line",
    }


def test_what_verify_refuses_is_refused_and_named(league: Path, sources: list[Path]) -> None:
    expected = _tampered_league(league, sources)
    report = read(league)
    games, versions, refused = counts(league)
    # Every bot's versions, and no other: no phantom version from the foreign record.
    assert versions == PLAN.players + int(PLAN.players * PLAN.resubmitted)
    assert games == PLAN.games - 4
    assert [(name, number) for name, number, _ in refused] == [("t01", n) for n in (1, 2, 3, 4)]
    for _, number, problem in refused:
        assert expected[number] in problem, (number, problem)
    assert len(report.refused) == 4
    # Refused games stay refused, kept in the index, and are not read again until their store
    # says they changed.
    again = read(league)
    assert (again.read, again.refused) == (0, []) and len(counts(league)[2]) == 4


def test_a_store_changed_after_it_was_read_is_read_again(league: Path, sources: list[Path]) -> None:
    assert read(league).read == PLAN.games
    flip_winner(sources[1], 7)
    report = read(league)
    assert len(report.refused) == 1 and "t02: game 7 (games/0007.jsonl): " in report.refused[0]
    assert counts(league)[0] == PLAN.games - 1


def test_a_league_of_tampered_games_says_so_and_exits_1(
    tmp_path: Path, league: Path, sources: list[Path]
) -> None:
    _tampered_league(league, sources)
    rated = referee_here("league", "rate", "league", "--bootstrap", "0", cwd=tmp_path)
    assert rated.returncode == 1, rated.stderr
    said = " ".join(rated.stderr.split())
    assert "4 games refused, not rated:" in said
    assert f"{sources[0]}: game 3 (games/0003.jsonl): the record says" in said
    shown = referee_here("league", "show", "league", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "4 games refused, not rated" in " ".join(shown.stderr.split())


def test_an_index_of_unchecked_games_is_read_again(league: Path) -> None:
    # An index written before games were checked (schema 1, no `refused`) is made again from
    # the sources by the next command that writes it; a reader is told to run `rate`.
    read(league)
    db = sqlite3.connect(league / "league.sqlite")
    with db:
        db.execute("DROP TABLE refused")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    db.close()
    with pytest.raises(LeagueError, match=r"older referee.*league rate"):
        open_index(league, writer=False)
    assert read(league).read == PLAN.games  # every game read, and checked, again
    assert counts(league)[0] == PLAN.games


def test_records_of_another_game_than_their_tournament_are_refused(
    league: Path, sources: list[Path]
) -> None:
    db = sqlite3.connect(sources[2] / "tournament.sqlite")
    with db:
        db.execute("UPDATE meta SET value = 'alak' WHERE key = 'game'")
    db.close()
    report = read(league)
    assert report.read == 2 * PER_SOURCE and len(report.refused) == PLAN.games - 2 * PER_SOURCE
    assert "the record is a game of tic-tac-toe, not of alak" in report.refused[0]


def test_the_dashboard_says_what_the_league_left_out(league: Path, sources: list[Path]) -> None:
    flip_winner(sources[0], 3)
    index = open_index(league, writer=True)
    try:
        sync(index, league, load_league(league))
        rate_league(index, FitSettings(bootstrap=0, history="none"), lambda *_: None)
    finally:
        index.close()
    with serve_league_in_thread(league) as url:
        page = urlopen(f"{url}/", timeout=30).read().decode()
    assert "1 game refused, not rated (see `league show`)" in page


def test_a_copy_of_records_without_a_hash_chain_counts_once(
    league: Path, sources: list[Path]
) -> None:
    # Records from before the hash chain (and a store that kept no final hash): the key of a
    # game is its record file's hash, so a copy still counts once.
    for record in (sources[0] / "games").glob("*.jsonl"):
        strip_chain(record)
    with sqlite3.connect(sources[0] / "tournament.sqlite") as db:
        db.execute("UPDATE games SET chain = NULL")
    shutil.copytree(sources[0], sources[0].parent / "copy-of-t01")
    config = load_league(league)
    entries = [*config.sources, "../runs/copy-of-t01"]
    save_league(league, config.model_copy(update={"sources": entries}))
    report = read(league)
    assert (report.read, len(report.copies), report.refused) == (PLAN.games, PER_SOURCE, [])
