"""One game, ordered: everything that decides how it is played, as one frozen JSON value.

`referee play`, the tournament runner, a cluster worker and `referee check` each build a
`GameOrder` and hand it to `driver.play` with the host they run on (referee/match/host.py);
nothing else says how a game is played. The players are those of the order, with their
commands ready to run on this machine (`PlayerSpec.for_game` expands a built-in bot's); the
colours are drawn from the seed unless the settings say player 1 is blue.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from protocols.base import Side
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec


class GameOrder(BaseModel):
    """One game to play: the game and its options, both players, the settings, the seed and
    the opening (the moves played before the bots take over)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game: str
    options: dict[str, Any] = Field(default_factory=dict)  # as given; the game fills defaults
    players: tuple[PlayerSpec, PlayerSpec]  # player 1, player 2
    settings: MatchSettings = Field(default_factory=MatchSettings)
    seed: int | None = None
    opening: tuple[str, ...] = ()

    def title(self) -> str:
        """What it is, for people: `a game of GAME: NAME vs NAME`."""
        return f"a game of {self.game}: {self.players[0].name} vs {self.players[1].name}"

    def colours(self) -> dict[Side, PlayerSpec]:
        """Who plays which colour: drawn from the seed, or player 1 blue without
        `random_assignment` (a tournament's schedule gives the colours so)."""
        first, second = self.players
        if self.settings.random_assignment and random.Random(self.seed).random() < 0.5:
            first, second = second, first
        return {Side.BLUE: first, Side.ORANGE: second}
