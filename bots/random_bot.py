"""The random bot: a uniformly random legal move, reproducible with a seed."""

from __future__ import annotations

import random
from typing import Any

from bots.clock import MoveClock
from bots.config import BotConfig
from bots.player import Chooser
from protocols.base import Game


def random_chooser(game: Game[Any, Any, Any], config: BotConfig) -> Chooser:
    rng = random.Random(config.seed)

    def choose(state: Any, clock: MoveClock) -> Any:
        return rng.choice(list(game.legal_moves(state)))

    return choose
