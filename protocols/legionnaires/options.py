"""The options of a Legionnaires game (board size and start position), validated when a game is
set up."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator, model_validator

from protocols.base import Side
from protocols.legionnaires.defaults import (
    DEFAULT_BLUE,
    DEFAULT_ORANGE,
    HEIGHT,
    MAX_SIZE,
    MIN_SIZE,
    WIDTH,
    board_name,
    square_names,
)
from protocols.options import GameOptions


class LegionnairesOptions(GameOptions):
    """Board size and start position; the defaults are the tournament game (8x8, spec start).

    `blue` and `orange` list each side's pawns (a list, or one string of squares separated by
    spaces or commas); leave both unset for the standard start, which needs the 8x8 board.
    """

    width: int = Field(WIDTH, ge=MIN_SIZE, le=MAX_SIZE, description="number of files (columns)")
    height: int = Field(HEIGHT, ge=MIN_SIZE, le=MAX_SIZE, description="number of ranks (rows)")
    blue: tuple[str, ...] | None = Field(None, description="blue's pawns (White, moves first)")
    orange: tuple[str, ...] | None = Field(None, description="orange's pawns (Black)")

    @field_validator("blue", "orange", mode="before")
    @classmethod
    def _split_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(value.replace(",", " ").split())
        return value

    @model_validator(mode="after")
    def _check_start(self) -> LegionnairesOptions:
        if (self.blue is None) != (self.orange is None):
            raise ValueError("give both blue and orange start squares, or neither")
        if self.blue is None and (self.width, self.height) != (WIDTH, HEIGHT):
            raise ValueError(
                f"a {self.width}x{self.height} board needs an explicit start (blue and orange)"
            )
        on_board = frozenset(square_names(self.width, self.height))
        blue, orange = self.start()
        for side, squares in ((Side.BLUE, blue), (Side.ORANGE, orange)):
            if not squares:
                raise ValueError(f"{side} needs at least one pawn")
            for name in squares:
                if name not in on_board:
                    board = board_name(self.width, self.height)
                    raise ValueError(f"{side} pawn {name!r} is not a square of {board}")
            if len(set(squares)) != len(squares):
                raise ValueError(f"{side} lists a square twice")
        shared = sorted(set(blue) & set(orange))
        if shared:
            raise ValueError(f"blue and orange both have a pawn on {', '.join(shared)}")
        return self

    def start(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The (blue, orange) start squares these options describe."""
        if self.blue is None or self.orange is None:
            return DEFAULT_BLUE, DEFAULT_ORANGE
        return self.blue, self.orange
