"""The applet bot: the two strategies of the playable applet in Boardman's Legionnaires paper.

As White (blue, the first player) it plays a uniformly random legal move. As Black (orange) it
looks one move ahead and plays the move that leaves White the fewest legal replies, ties broken
at random. The paper reports that this Black beats a random White about eight or nine games out
of ten; `scripts/applet_strength.py` measures it. The rule uses nothing but legal moves, so the
bot plays every game, though it was made for Legionnaires.
"""

from __future__ import annotations

import random
from typing import Any

from bots.clock import MoveClock
from bots.config import BotConfig
from bots.player import Chooser
from protocols.base import Game, Side


def fewest_replies(game: Game[Any, Any, Any], state: Any, rng: random.Random) -> Any:
    """The move after which the opponent has the fewest legal moves, ties broken by `rng`."""
    best: list[Any] = []
    fewest: int | None = None
    for move in game.legal_moves(state):
        replies = len(game.legal_moves(game.apply(state, move)))
        if fewest is None or replies < fewest:
            fewest, best = replies, [move]
        elif replies == fewest:
            best.append(move)
    return rng.choice(best)


def applet_chooser(game: Game[Any, Any, Any], config: BotConfig) -> Chooser:
    rng = random.Random(config.seed)

    def choose(state: Any, clock: MoveClock) -> Any:
        if state.to_move is Side.BLUE:
            return rng.choice(list(game.legal_moves(state)))
        return fewest_replies(game, state, rng)

    return choose
