"""The options of a Lielow game (its safety cap), validated when a game is set up."""

from __future__ import annotations

from pydantic import Field

from protocols.lielow.defaults import DEFAULT_PLY_LIMIT
from protocols.options import GameOptions


class LielowOptions(GameOptions):
    """Lielow options: only the safety cap, since the rules themselves have no draws."""

    ply_limit: int = Field(
        DEFAULT_PLY_LIMIT,
        ge=0,
        description="draw when this many plies have been played; 0 = no cap (games end by "
        "themselves within 960 plies)",
    )
