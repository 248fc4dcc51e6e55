"""What a tournament run reports as it goes: one pydantic model per event.

The live display reads them, and `referee tournament run --events` prints each as one JSON line
on stdout, so scripts follow a tournament without scraping text. Every event has `event` (its
kind) and `time` (UTC).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator

from protocols.base import Reason
from referee.records import ResultLabel, utc_now
from referee.tournament.standings import Standing, ordered_faults


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    time: datetime = Field(default_factory=utc_now)


class TournamentStarted(_Event):
    event: Literal["tournament-started"] = "tournament-started"
    name: str
    game: str
    directory: str
    games: int  # games in the schedule
    finished: int  # already finished (a resumed tournament)
    concurrency: int


class GameStarted(_Event):
    event: Literal["game-started"] = "game-started"
    number: int
    attempt: int
    blue: str
    orange: str
    record: str  # relative to the tournament directory


class GameFinished(_Event):
    event: Literal["game-finished"] = "game-finished"
    number: int
    attempt: int
    blue: str
    orange: str
    result: ResultLabel  # a double forfeit is a loss for both, never a draw
    winner: str | None  # the winner's name
    reason: Reason
    ending: str | None = None  # the game's own ending, when reason is game-ending
    detail: str
    plies: int
    record: str
    replay: bool = False  # void and to be replayed later


class StandingLine(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rank: int
    name: str
    points: int
    games: int
    wins: int
    draws: int
    losses: int
    timeouts: int
    crashes: int
    illegal: int
    # Every bot fault by its reason, non-zero counts only, most frequent first: the three
    # counts above leave out the protocol faults (out-of-turn, line-too-long, bad-encoding).
    faults: dict[Reason, int]

    @field_validator("faults")
    @classmethod
    def _in_view_order(cls, faults: dict[Reason, int]) -> dict[Reason, int]:
        return ordered_faults(faults)

    @classmethod
    def of(cls, standing: Standing, **more: object) -> Self:
        """This model's fields read off a computed standing; `more` fills a subclass's fields."""
        return cls.model_validate(
            {name: getattr(standing, name) for name in StandingLine.model_fields} | more
        )


class TournamentFinished(_Event):
    event: Literal["tournament-finished"] = "tournament-finished"
    complete: bool  # every game finished (or void beyond the replay limit)
    interrupted: bool
    finished: int
    void: int  # games left void after their last allowed replay
    pending: int
    standings: list[StandingLine]


Event = TournamentStarted | GameStarted | GameFinished | TournamentFinished
