"""The settings of the staged formats: a config's `[stages]`, `[knockout]` and `[swiss]` tables,
and which formats are staged. Plain data, read by the config and by the formats (`formats/`)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# The formats that add games as earlier rounds finish (the others make their schedule up front).
STAGED = frozenset({"stages", "knockout", "swiss"})


def is_staged(format: str) -> bool:
    return format in STAGED


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StagesSettings(_Model):
    # The first stage's groups by name, every player in one (default: drawn by the seed).
    groups: dict[str, list[str]] = Field(default_factory=dict)
    max_groups: int = Field(8, ge=1, le=64)
    group_size: int = Field(4, ge=2, le=64)
    advance: int = Field(2, ge=1, le=32)  # from each group to the next stage
    final_games: int = Field(2, ge=1, le=100)  # of the final and of the third-place match
    extra_games: int = Field(2, ge=0, le=100)  # when a final is level after its games


class KnockoutSettings(_Model):
    games: int = Field(2, ge=1, le=100)  # of each tie
    extra_games: int = Field(2, ge=0, le=100)  # when a tie is level after its games
    seeding: Literal["config", "random", "ratings"] = "config"
    seeds: list[str] = Field(default_factory=list)  # best first; `ratings` fills it
    ratings_from: Path | None = None  # an earlier tournament (its config or directory)
    third_place: bool = False


class SwissSettings(_Model):
    rounds: int | None = Field(None, ge=1, le=1000)  # default: as many as the field allows
