"""The options of an Alak game (board size, rule variant, draw rules), validated when a game is
set up."""

from __future__ import annotations

from pydantic import Field, field_validator

from protocols.alak.defaults import (
    MAX_SIZE,
    MIN_TOURNAMENT_SIZE,
    PLY_LIMIT,
    REPETITION,
    SIZE,
    VARIANTS,
)
from protocols.options import GameOptions, RepetitionCount


class AlakOptions(GameOptions):
    """Settings of an Alak game; `repetition` and `ply_limit` are off when 0."""

    size: int = Field(
        SIZE, ge=MIN_TOURNAMENT_SIZE, le=MAX_SIZE, description="number of points, a..(5..26)"
    )
    variant: str = Field(
        VARIANTS[0], description="rule variant: 'baljeu' (default) or 'traditional' (Go-like)"
    )
    repetition: RepetitionCount = Field(
        REPETITION, description="draw on this occurrence of a state; 0 = off"
    )
    ply_limit: int = Field(PLY_LIMIT, ge=0, description="draw after this many plies; 0 = off")

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, value: str) -> str:
        if value not in VARIANTS:
            raise ValueError(
                f"unknown Alak variant {value!r}: 'baljeu' (Baljeu's rules, the default) or "
                "'traditional' (the Go-like game: no suicide, ko, pass, territory scoring)"
            )
        return value
