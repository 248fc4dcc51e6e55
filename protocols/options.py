"""The base of every game's options model, and the draw-by-repetition setting several games share.

Kept apart from `protocols.base` because it is the only part of a game that needs pydantic, and
importing pydantic costs a built-in bot most of its start: a bot playing with the default
options never loads this module (see `Game.options_model` and `options_model_at`).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


def _repetition_count(value: int) -> int:
    if value == 1:
        raise ValueError("repetition must be 0 (off) or at least 2: the start is occurrence 1")
    return value


# A draw-by-repetition option: the occurrence of a position that draws, or 0 for off. The start
# position is the first occurrence, so 1 would end every game at once and is refused.
RepetitionCount = Annotated[int, Field(ge=0), AfterValidator(_repetition_count)]


class GameOptions(BaseModel):
    """Base of every game's options: validated, immutable, recorded in the game record."""

    model_config = ConfigDict(frozen=True, extra="forbid")
