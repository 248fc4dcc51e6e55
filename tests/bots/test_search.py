"""The search engine: exact results on solvable positions, forced wins found, determinism at a
fixed depth, and a clean stop when the clock runs out."""

from __future__ import annotations

import itertools
import random
import time
from typing import Any

import pytest

from bots.clock import MoveClock, unlimited
from bots.evaluation import model_for
from bots.search.engine import MATE, MATE_BOUND, Search
from protocols import get_game
from protocols.base import Game, Side
from protocols.lasker_morris.rules import GAME as MORRIS
from protocols.legionnaires.rules import GAME as LEGIONNAIRES
from protocols.legionnaires.rules import position
from protocols.lielow.rules import GAME as LIELOW

SEARCHED = ["lasker-morris", "lielow", "legionnaires", "alak"]


def exact_value(game: Game[Any, Any, Any], state: Any) -> int:
    """Plain minimax without pruning or tables: 1 win, 0 draw, -1 loss for the side to move."""
    outcome = game.outcome(state)
    if outcome is not None:
        return 0 if outcome.winner is None else 1 if outcome.winner is state.to_move else -1
    return max(-exact_value(game, game.apply(state, m)) for m in game.legal_moves(state))


def random_legionnaires_position(rng: random.Random) -> Any:
    """A small-board Legionnaires position (4x4 or 5x4), solvable by plain minimax."""
    width, height = rng.choice([(4, 4), (5, 4)])
    squares = [f"{chr(97 + x)}{y + 1}" for x in range(width) for y in range(height)]
    chosen = rng.sample(squares, rng.randint(5, 8))
    split = rng.randint(2, len(chosen) - 2)
    to_move = rng.choice(list(Side))
    return position(chosen[:split], chosen[split:], to_move=to_move, width=width, height=height)


def test_search_value_matches_plain_minimax_on_small_legionnaires() -> None:
    rng = random.Random(12)
    checked = 0
    for _ in range(60):
        state = random_legionnaires_position(rng)
        if LEGIONNAIRES.outcome(state) is not None:
            continue
        truth = exact_value(LEGIONNAIRES, state)
        result = Search(model_for("legionnaires"), seed=1).choose(state, unlimited(), 30)
        if len(LEGIONNAIRES.legal_moves(state)) > 1:  # a single move is played unsearched
            assert abs(result.score) > MATE_BOUND  # the whole game fits in 30 plies: solved
            assert (1 if result.score > 0 else -1) == truth
        after = LEGIONNAIRES.apply(state, result.move)
        assert -exact_value(LEGIONNAIRES, after) == truth  # the chosen move keeps the value
        checked += 1
    assert checked >= 30


def test_lielow_search_takes_the_enemy_king() -> None:
    state = LIELOW.state_from_stacks(
        {"e2": ("blue", 1), "e4": ("blue", 2), "e6": ("orange", 3), "a7": ("orange", 1)}
    )
    result = Search(model_for("lielow"), seed=1).choose(state, unlimited(), 3)
    assert LIELOW.format_move(result.move) == "e4 e6"
    assert result.score == MATE - 1


def test_lasker_morris_search_closes_the_winning_mill() -> None:
    state = MORRIS.state_from_position(
        blue=["a1", "a4", "d2", "f4"], orange=["g1", "g4", "d7"], blue_hand=1, orange_hand=0
    )
    result = Search(model_for("lasker-morris"), seed=1).choose(state, unlimited(), 3)
    assert MORRIS.format_move(result.move).startswith("h1 a7 ")
    assert result.score == MATE - 1


def wins_within(game: Game[Any, Any, Any], state: Any, plies: int) -> bool:
    """Whether the side to move can force a win within `plies` plies (plain minimax)."""
    if plies <= 0:
        return False
    for move in game.legal_moves(state):
        after = game.apply(state, move)
        outcome = game.outcome(after)
        if outcome is not None:
            if outcome.winner is state.to_move:
                return True
            continue
        if plies >= 3 and all(
            _won_after(game, game.apply(after, reply), state.to_move, plies - 2)
            for reply in game.legal_moves(after)
        ):
            return True
    return False


def _won_after(game: Game[Any, Any, Any], state: Any, side: Side, plies: int) -> bool:
    outcome = game.outcome(state)
    if outcome is not None:
        return outcome.winner is side
    return wins_within(game, state, plies)


def test_lielow_search_finds_a_forced_win_in_three_plies() -> None:
    # Orange has only its king in the corner; no blue stack reaches it yet, but one blue move
    # can attack it while covering every square it could run to.
    state = LIELOW.state_from_stacks(
        {"h8": ("orange", 2), "f5": ("blue", 3), "e8": ("blue", 1), "g1": ("blue", 2)}
    )
    assert not wins_within(LIELOW, state, 1)
    assert wins_within(LIELOW, state, 3)
    result = Search(model_for("lielow"), seed=1).choose(state, unlimited(), 4)
    assert result.score == MATE - 3
    assert not wins_within(LIELOW, LIELOW.apply(state, result.move), 2)  # orange is helpless


def play_out(game_name: str, depth: int, seed: int, plies: int) -> list[str]:
    """A game between fixed-depth search (blue) and a seeded random player (orange)."""
    game = get_game(game_name)
    state = game.initial_state(game.parse_options({}))
    search, rng = Search(model_for(game_name), seed), random.Random(seed)
    lines: list[str] = []
    while game.outcome(state) is None and len(lines) < plies:
        if state.to_move is Side.BLUE:
            move = search.choose(state, unlimited(), depth).move
        else:
            move = rng.choice(list(game.legal_moves(state)))
        lines.append(game.format_move(move))
        state = game.apply(state, move)
    return lines


@pytest.mark.parametrize("game_name", SEARCHED)
def test_fixed_depth_search_is_deterministic(game_name: str) -> None:
    first = play_out(game_name, 3, seed=7, plies=16)
    second = play_out(game_name, 3, seed=7, plies=16)
    assert first == second
    assert len(first) >= 4


@pytest.mark.parametrize("game_name", SEARCHED)
def test_search_on_an_expired_clock_still_finishes_depth_one(game_name: str) -> None:
    game = get_game(game_name)
    state = game.initial_state(game.parse_options({}))
    late = MoveClock(time.monotonic() - 100.0, 1.0)
    result = Search(model_for(game_name), seed=1).choose(state, late)
    assert result.depth == 1
    assert result.move in game.legal_moves(state)


@pytest.mark.parametrize("game_name", SEARCHED)
def test_search_stops_mid_iteration_when_the_clock_runs_out(game_name: str) -> None:
    looks = itertools.count()

    def fake_now() -> float:  # time stands still for 40 looks, then the move is long overdue
        return 0.0 if next(looks) < 40 else 100.0

    game = get_game(game_name)
    state = game.initial_state(game.parse_options({}))
    search = Search(model_for(game_name), seed=1, now=fake_now)
    result = search.choose(state, MoveClock(0.0, 1.0))
    assert result.stopped
    assert 1 <= result.depth < 20
    assert result.move in game.legal_moves(state)
    # The clock is read every 256 nodes: the search stopped at the first look past the limit.
    assert result.nodes <= 41 * 256
