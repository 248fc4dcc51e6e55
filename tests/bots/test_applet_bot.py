"""The applet bot: random as White, fewest replies as Black; and `builtin:applet` through the
referee with real processes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bots.applet_bot import applet_chooser, fewest_replies
from bots.clock import MoveClock
from bots.config import BotConfig
from protocols.base import Side
from protocols.legionnaires.rules import GAME
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec, resolve_command
from referee.verify import verify_record
from tests.games import play_game

CLOCK = MoveClock(0.0, 60.0)


def replies_after(state: object, move: object) -> int:
    return len(GAME.legal_moves(GAME.apply(state, move)))


def test_black_leaves_white_the_fewest_moves_and_breaks_ties_at_random() -> None:
    start = GAME.initial_state()
    after_white = GAME.apply(start, GAME.parse_move(start, "e6 g3"))
    assert after_white.to_move is Side.ORANGE
    counts = {move: replies_after(after_white, move) for move in GAME.legal_moves(after_white)}
    fewest = min(counts.values())
    best = {move for move, count in counts.items() if count == fewest}
    assert len(set(counts.values())) > 1  # the rule has a real choice to make here
    chosen = {fewest_replies(GAME, after_white, random.Random(seed)) for seed in range(40)}
    assert chosen <= best
    if len(best) > 1:
        assert len(chosen) > 1
    bot = applet_chooser(GAME, BotConfig(seed=3))
    assert bot(after_white, CLOCK) in best


def test_white_plays_at_random() -> None:
    start = GAME.initial_state()
    legal = set(GAME.legal_moves(start))
    chosen = {applet_chooser(GAME, BotConfig(seed=seed))(start, CLOCK) for seed in range(60)}
    assert chosen <= legal
    # Random play reaches moves the fewest-replies rule would never pick.
    counts = {move: replies_after(start, move) for move in legal}
    assert any(counts[move] > min(counts.values()) for move in chosen)


SETTINGS = MatchSettings(
    move_timeout=5.0, grace=0.5, startup_allowance=10.0, random_assignment=False
)


@pytest.mark.parametrize("game", ["legionnaires", "alak"])
async def test_builtin_applet_plays_a_clean_game_through_the_referee(
    game: str, tmp_path: Path
) -> None:
    blue = PlayerSpec(name="random", command=resolve_command("builtin:random --seed 5", game))
    orange = PlayerSpec(name="applet", command=resolve_command("builtin:applet --seed 6", game))
    record = await play_game(
        game, blue, orange, settings=SETTINGS, record_path=tmp_path / "game.jsonl"
    )
    result = record.result
    assert result is not None
    assert not result.void, result.detail
    assert not result.reason.is_bot_fault, f"{result.reason}: {result.detail}"
    assert verify_record(record).ok
    assert all(report.exit_code == 0 for report in result.bots.values())
