"""Whole games of every game through the `referee` command, between built-in random bots."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocols import game_names
from referee.records import read_record
from referee.verify import verify_record
from tests.commandline import referee


@pytest.mark.parametrize("game", game_names())
def test_every_game_plays_through_the_cli(tmp_path: Path, game: str) -> None:
    proc = referee(
        "play", game, "-p1", "builtin:random --seed 1", "-p2", "builtin:random --seed 2",
        "--seed", "3", "--record", "game.jsonl", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    record = read_record(tmp_path / "game.jsonl")
    assert record.result is not None
    assert not record.result.reason.is_bot_fault, record.result.detail
    assert record.header.game == game
    verification = verify_record(record)
    assert verification.ok, verification.problems
    assert verification.outcome is not None
    assert (verification.outcome.winner, verification.outcome.reason) == (
        record.result.winner,
        record.result.reason,
    )
    winner = record.result.winner
    expected = "Game over! Draw!" if winner is None else f"Game over! Winner: {winner}"
    assert proc.stdout.strip() == expected
    assert all(r.exit_code == 0 for r in record.result.bots.values())


def test_game_options_reach_builtin_bots_and_the_record(tmp_path: Path) -> None:
    proc = referee(
        "play", "alak", "-o", "size=7", "-p1", "builtin:random --seed 4",
        "-p2", "builtin:random --seed 5", "--record", "game.jsonl", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    record = read_record(tmp_path / "game.jsonl")
    assert record.header.options["size"] == 7
    assert record.result is not None and not record.result.reason.is_bot_fault
    assert verify_record(record).ok


def test_invalid_game_option_names_the_field(tmp_path: Path) -> None:
    proc = referee("play", "alak", "-o", "size=4", "-p1", "a", "-p2", "b", cwd=tmp_path)
    assert proc.returncode == 2
    assert "-o size=4: alak's size is a whole number from 5 to 26 (default 11)" in proc.stderr
    assert "errors.pydantic.dev" not in proc.stderr
