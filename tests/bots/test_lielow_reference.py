"""The Lielow reference bot: the published player's search and evaluation, exactly."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bots.clock import unlimited
from bots.config import BotConfig
from bots.lielow_reference import (
    WIN,
    LielowReference,
    captures_first,
    lielow_reference_chooser,
    mobility,
    negamax,
)
from protocols import get_game
from protocols.lielow.rules import GAME, OFF, LielowState


def random_states(seed: int, count: int) -> list[LielowState]:
    rng = random.Random(seed)
    found: list[LielowState] = []
    while len(found) < count:
        state = GAME.initial_state()
        while GAME.outcome(state) is None and len(found) < count:
            state = GAME.apply(state, rng.choice(list(GAME.legal_moves(state))))
            if rng.random() < 0.2 and GAME.outcome(state) is None:
                found.append(state)
    return found


def plain(state: LielowState, depth: int) -> int:
    """Negamax without pruning, with the reference's evaluation and win scores."""
    outcome = GAME.outcome(state)
    if outcome is not None:
        if outcome.winner is None:
            return 0
        return WIN + depth if outcome.winner is state.to_move else -WIN - depth
    if depth == 0:
        return mobility(state)
    return max(-plain(GAME.apply(state, m), depth - 1) for m in GAME.legal_moves(state))


def test_the_evaluation_is_the_difference_of_legal_moves() -> None:
    for state in random_states(1, 20):
        other = dataclasses.replace(state, to_move=state.to_move.other)
        assert mobility(state) == len(GAME.legal_moves(state)) - len(GAME.legal_moves(other))


def test_captures_come_first() -> None:
    for state in random_states(2, 20):
        ordered = captures_first(state)
        assert sorted(ordered) == sorted(GAME.legal_moves(state))
        taking = [m.dst != OFF and state.board[m.dst] != 0 for m in ordered]
        assert taking == sorted(taking, reverse=True)


def test_alpha_beta_gives_the_plain_negamax_value() -> None:
    for state in random_states(3, 6):
        assert negamax(state, 2, -3 * WIN, 3 * WIN) == plain(state, 2)


def test_it_takes_the_king() -> None:
    state = GAME.state_from_stacks(
        {"e2": ("blue", 1), "e4": ("blue", 2), "e6": ("orange", 3), "a7": ("orange", 1)}
    )
    move = LielowReference(3, seed=1)(state, unlimited())
    assert GAME.format_move(move) == "e4 e6"


def test_the_seed_breaks_ties_at_the_root() -> None:
    start = GAME.initial_state()
    first = {GAME.format_move(LielowReference(1, seed)(start, unlimited())) for seed in range(12)}
    assert len(first) > 1  # the start is symmetric: several moves score the same
    again = [LielowReference(1, 5)(start, unlimited()) for _ in range(2)]
    assert again[0] == again[1]


def test_it_plays_only_lielow() -> None:
    with pytest.raises(ValueError, match="only Lielow"):
        lielow_reference_chooser(get_game("alak"), BotConfig())
