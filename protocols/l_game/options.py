"""The options of an L game (its draw rules), validated when a game is set up."""

from __future__ import annotations

from pydantic import Field

from protocols.l_game.defaults import PLY_LIMIT, REPETITION
from protocols.options import GameOptions, RepetitionCount


class LGameOptions(GameOptions):
    """Draw rules of the L game; 0 switches a rule off."""

    repetition: RepetitionCount = Field(
        default=REPETITION, description="draw on this occurrence of a position (0 = off, else >= 2)"
    )
    ply_limit: int = Field(
        default=PLY_LIMIT, ge=0, description="draw after this many plies (0 = off)"
    )
