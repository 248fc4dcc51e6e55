"""The random bot: a uniformly random legal move, reproducible with a seed."""

from __future__ import annotations

import random
from typing import Any

from protocols.base import Game


def random_chooser(game: Game[Any, Any, Any], seed: int | None) -> Any:
    rng = random.Random(seed)

    def choose(state: Any) -> Any:
        return rng.choice(list(game.legal_moves(state)))

    return choose
