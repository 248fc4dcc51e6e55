"""The greedy bot: the move whose resulting position evaluates best, ties broken at random.

One ply only, with the same per-game evaluation as the search (captures, mills, king safety,
room to move): a sensible weak baseline.
"""

from __future__ import annotations

import random
from typing import Any

from bots.clock import MoveClock
from bots.config import BotConfig
from bots.evaluation import model_for
from bots.player import Chooser
from bots.search.engine import MATE
from protocols.base import Game


def greedy_chooser(game: Game[Any, Any, Any], config: BotConfig) -> Chooser:
    model = model_for(game.name)
    rng = random.Random(config.seed)

    def choose(state: Any, clock: MoveClock) -> Any:
        root = model.root(state)
        moves, _ = model.moves(root)
        best_score: int | None = None
        best: list[Any] = []
        for move in moves:
            child = model.play(root, move)
            ended = model.end(child)  # from the opponent's side: -1 means we have won
            score = -MATE * ended if ended is not None else -model.evaluate(child)
            if best_score is None or score > best_score:
                best_score, best = score, [move]
            elif score == best_score:
                best.append(move)
        return model.to_protocol(root, rng.choice(best))

    return choose
