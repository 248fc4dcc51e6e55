"""Every built-in bot plays whole games of every game against the random bot, through the
referee (real processes, the normal protocol), without a fault of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from protocols import game_names
from protocols.base import Side
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec, resolve_command
from referee.records import GameRecord
from referee.verify import verify_record
from tests.games import play_game

SETTINGS = MatchSettings(
    move_timeout=5.0, grace=0.5, startup_allowance=10.0, random_assignment=False
)
MOVETIME = "--movetime 0.05"
BOTS = ["random", "greedy", f"search {MOVETIME}", "search --depth 2"]
SMALL_ALAK = {"size": 8}  # a draw with perfect play: the perfect side cannot lose


async def play(
    game: str, bot: str, blue: bool, tmp_path: Path, options: dict[str, Any] | None = None
) -> tuple[GameRecord, Side]:
    """One game of `bot` against the random bot; returns the record and the bot's colour."""
    extra = f" --options '{json.dumps(options)}'" if options else ""
    tested = PlayerSpec(name="tested", command=resolve_command(f"builtin:{bot}{extra}", game))
    random_bot = PlayerSpec(
        name="random", command=resolve_command(f"builtin:random --seed 11{extra}", game)
    )
    players = (tested, random_bot) if blue else (random_bot, tested)
    record = await play_game(
        game, *players, options=options, settings=SETTINGS, record_path=tmp_path / "game.jsonl"
    )
    return record, Side.BLUE if blue else Side.ORANGE


def check_clean_game(record: GameRecord) -> None:
    """A finished game by the rules: no bot fault, replayable, both bots exited cleanly."""
    result = record.result
    assert result is not None
    assert not result.void, result.detail
    assert not result.reason.is_bot_fault, f"{result.reason}: {result.detail}"
    verification = verify_record(record)
    assert verification.ok, verification.problems
    assert all(report.exit_code == 0 for report in result.bots.values()), result.bots


CASES = [
    (game, bot, (i + j) % 2 == 0)
    for i, game in enumerate(game_names())
    for j, bot in enumerate(BOTS)
]


@pytest.mark.parametrize(("game", "bot", "blue"), CASES)
async def test_bot_plays_a_whole_game_against_random(
    game: str, bot: str, blue: bool, tmp_path: Path
) -> None:
    record, _ = await play(game, f"{bot} --seed 3", blue, tmp_path)
    check_clean_game(record)


@pytest.mark.parametrize("blue", [True, False])
async def test_search_plays_small_alak_from_the_table(blue: bool, tmp_path: Path) -> None:
    record, side = await play("alak", f"search {MOVETIME} --seed 4", blue, tmp_path, SMALL_ALAK)
    check_clean_game(record)
    assert record.result is not None and record.result.winner is not side.other


@pytest.mark.parametrize("blue", [True, False])
async def test_perfect_bot_never_loses_the_l_game_to_random(blue: bool, tmp_path: Path) -> None:
    record, side = await play("l-game", f"perfect {MOVETIME} --seed 5", blue, tmp_path)
    check_clean_game(record)
    assert record.result is not None and record.result.winner is not side.other


@pytest.mark.parametrize("blue", [True, False])
async def test_perfect_bot_never_loses_small_alak_to_random(blue: bool, tmp_path: Path) -> None:
    record, side = await play("alak", f"perfect {MOVETIME} --seed 6", blue, tmp_path, SMALL_ALAK)
    check_clean_game(record)
    assert record.result is not None and record.result.winner is not side.other


@pytest.mark.parametrize("game", ["lielow", "alak"])
async def test_fixed_depth_games_repeat_exactly_through_the_referee(
    game: str, tmp_path: Path
) -> None:
    moves = []
    for _ in range(2):
        record, _ = await play(game, "search --depth 2 --seed 9", True, tmp_path)
        check_clean_game(record)
        moves.append([ply.move for ply in record.plies])
    assert moves[0] == moves[1]
