"""The options of a Lasker Morris game (its draw rules), validated when a game is set up."""

from __future__ import annotations

from pydantic import Field

from protocols.lasker_morris.defaults import NO_CAPTURE_LIMIT, REPETITION
from protocols.options import GameOptions, RepetitionCount


class LaskerMorrisOptions(GameOptions):
    """Settings of a Lasker Morris game; both draw rules are off when 0.

    `repetition: 0` is the course code's behaviour (it never checks repetition); the CLI's
    `--no-repetition` sets it.
    """

    no_capture_limit: int = Field(
        NO_CAPTURE_LIMIT,
        ge=0,
        description="draw after this many consecutive plies without a removal; 0 = off",
    )
    repetition: RepetitionCount = Field(
        REPETITION, description="draw on this occurrence of the same position; 0 = off"
    )
