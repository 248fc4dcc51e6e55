"""`referee tournament verify`: every finished game of a real tournament (built-in bots) against
its record, its hash chain, the final hash the store kept, and the rules; and a tournament
from before the hash chain (its store migrated when opened, its records without a chain)."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.tournament.store import STORE_NAME, open_store, open_view
from tests.commandline import referee_here
from tests.conftest import ReadableFolders
from tests.replay.make_records import strip_chain
from tests.replay.tamper import (
    EDITS_WITH_LINE,
    Lines,
    edit_move_and_rechain,
    read_lines,
    remove_last_ply_and_result,
    remove_result,
    tamper,
    write_lines,
)

CONFIG = """\
name = "verified"
game = "alak"
seed = 11
games_per_pairing = 2
concurrency = 2

[[players]]
name = "ann"
command = "builtin:random --seed {seed}"
[[players]]
name = "bob"
command = "builtin:random --seed {seed}"
"""


@pytest.fixture(scope="module")
def played(readable_folders: ReadableFolders) -> Path:
    base = readable_folders.mktemp("verified")
    (base / "verified.toml").write_text(CONFIG)
    run = referee_here("tournament", "run", "verified.toml", "-q", cwd=base)
    assert run.returncode == 0, run.stderr
    return base / "verified"


@pytest.fixture
def tournament(played: Path, tmp_path: Path) -> Path:
    """A copy of the played tournament, to spoil."""
    return Path(shutil.copytree(played, tmp_path / "t"))


def verify(directory: Path) -> tuple[int, str]:
    proc = referee_here("tournament", "verify", directory.name, cwd=directory.parent)
    return proc.returncode, proc.stdout + proc.stderr


def test_an_untouched_tournament_verifies(played: Path) -> None:
    code, output = verify(played)
    assert code == 0, output
    assert "verified 2 finished games: every record holds" in output
    assert "note" not in output
    view = open_view(played)
    assert all(row.chain and len(row.chain) == 64 for row in view.games())
    view.close()
    by_config = referee_here("tournament", "verify", "verified.toml", cwd=played.parent)
    assert by_config.returncode == 0, by_config.stdout + by_config.stderr


@pytest.mark.parametrize("name", sorted(EDITS_WITH_LINE))
def test_an_edited_record_fails(tournament: Path, name: str) -> None:
    edit, _ = EDITS_WITH_LINE[name]
    tamper(tournament / "games" / "0001.jsonl", edit)
    code, output = verify(tournament)
    assert code == 1, output
    assert "game 1 (games/0001.jsonl): " in output
    assert "0001.jsonl:" in output and "the record was edited after it was written" in output
    assert "verified 2 finished games: 1 failed" in output
    assert "game 2" not in output


@pytest.mark.parametrize(
    ("cut", "found"),
    [
        (remove_result, "unfinished: the record has no result line"),
        (remove_last_ply_and_result, "unfinished: the record has no result line"),
        (edit_move_and_rechain, "the record's final hash is not the one the store kept"),
    ],
)
def test_a_cut_or_rewritten_record_fails_on_the_stored_final_hash(
    tournament: Path, cut: Callable[[Lines], Lines], found: str
) -> None:
    tamper(tournament / "games" / "0002.jsonl", cut)
    code, output = verify(tournament)
    assert code == 1, output
    assert "game 2 (games/0002.jsonl): the record's final hash is not the one" in output
    assert found in output


def test_a_changed_result_in_the_store_fails(tournament: Path) -> None:
    with sqlite3.connect(tournament / STORE_NAME) as db:
        (winner,) = db.execute("SELECT winner FROM games WHERE number = 1").fetchone()
        other = "orange" if winner == "blue" else "blue"
        db.execute("UPDATE games SET winner = ? WHERE number = 1", (other,))
    code, output = verify(tournament)
    assert code == 1, output
    assert "game 1 (games/0001.jsonl): the record says" in output and "the store" in output


def test_records_of_another_game_than_the_tournaments_fail(tournament: Path) -> None:
    with sqlite3.connect(tournament / STORE_NAME) as db:
        db.execute("UPDATE meta SET value = 'tic-tac-toe' WHERE key = 'game'")
    code, output = verify(tournament)
    assert code == 1, output
    assert "game 1 (games/0001.jsonl): the record is a game of alak, not of tic-tac-toe" in output


def test_a_missing_record_fails(tournament: Path) -> None:
    (tournament / "games" / "0002.jsonl").unlink()
    code, output = verify(tournament)
    assert code == 1 and "0002.jsonl: the record is missing" in output


def test_a_bad_store_or_config_is_exit_code_2(tournament: Path) -> None:
    assert referee_here("tournament", "verify", "nope.toml", cwd=tournament.parent).returncode == 2
    (tournament / STORE_NAME).write_bytes(b"not a database, just text " * 200)
    code, output = verify(tournament)
    assert code == 2 and "tournament.sqlite" in output and "Traceback" not in output


def make_older(directory: Path) -> None:
    """The tournament as a referee from before the hash chain left it."""
    for record in (directory / "games").glob("*.jsonl"):
        strip_chain(record)
    with sqlite3.connect(directory / STORE_NAME) as db:
        db.execute("ALTER TABLE games DROP COLUMN chain")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")


def test_an_older_tournament_verifies_with_a_note_and_its_store_is_migrated(
    tournament: Path,
) -> None:
    make_older(tournament)
    code, output = verify(tournament)  # read-only: nothing migrated yet
    assert code == 0, output
    assert "note: 2 of them have no hash chain (written by an older referee)" in output
    for _ in range(2):  # opening for writing adds the column, once
        open_store(tournament).close()
    with sqlite3.connect(tournament / STORE_NAME) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(games)")]
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    assert columns.count("chain") == 1 and version == ("2",)
    assert verify(tournament)[0] == 0
    record = tournament / "games" / "0001.jsonl"
    lines = read_lines(record)
    lines[-1] = {**lines[-1], "plies": lines[-1]["plies"] + 1}
    write_lines(record, lines)  # without a chain to break, the rules and the store still judge
    code, output = verify(tournament)
    assert code == 1 and "game 1 (games/0001.jsonl): result (after ply" in output
