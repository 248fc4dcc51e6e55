"""How a match is refereed: the time control, the bots' confinement and fair CPU, as data.

A config file gives them in two tables, `[time_control]` (`TimeSettings`) and `[match]`
(`MatchTable`: everything else a config may set); a config's model extends `MatchConfig`, which
folds the two into the one `MatchSettings` every game of a run is played with, when the config
is validated.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from referee.isolation.levels import IsolationSettings
from referee.isolation.limits import Limits
from referee.records import TimeControl


class TimeSettings(TimeControl):
    """The time control, and how a timeout is judged when the referee itself lagged: a
    tournament's `[time_control]` table."""

    overload_threshold: float = Field(
        0.25, gt=0, description="referee lag (seconds) during a move that voids its timeout"
    )

    @field_validator(*TimeControl.model_fields, "overload_threshold")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        """Every time is finite: a bot that never answers must lose, and a record's times stay
        numbers that every JSON reader reads (`inf` is not JSON)."""
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite number of seconds")
        return value


# What a `[match]` table is told of a setting that belongs elsewhere (referee/toml_config/).
_ELSEWHERE = "set by [time_control] or by the schedule, not here"


class MatchTable(BaseModel):
    """A config's `[match]` table: how a match is refereed beyond its time control. Containment
    and fair CPU default to the safe side (`referee play` turns freezing off, as the course
    does)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    # The settings a config gives elsewhere: `[time_control]`'s, and the colours (the schedule's).
    MISPLACED: ClassVar[dict[str, str]] = {
        name: _ELSEWHERE for name in (*TimeSettings.model_fields, "random_assignment")
    }

    exit_grace: float = Field(1.0, ge=0, description="seconds a bot may take to exit after END")
    max_line_bytes: int = Field(4096, ge=16)
    # Untrusted bots: resource limits, the isolation level (referee/isolation/), fair CPU. The
    # level defaults to `auto`, the strongest the machine offers, everywhere: bots are untrusted.
    limits: Limits = Field(default_factory=Limits)
    isolation: IsolationSettings = Field(default_factory=IsolationSettings)
    # Fair CPU: a bot that has used `freeze_grace` seconds of CPU since its answer is frozen
    # until it is asked again; one that blocks on its input first is never stopped
    # (referee/isolation/ponder.py).
    freeze: bool = Field(True, description="freeze the bot not on move while it ponders")
    freeze_grace: float = Field(
        0.05, ge=0, description="seconds of CPU after its answer before a pondering bot is frozen"
    )


class MatchSettings(MatchTable, TimeSettings):
    """How a match is refereed: the time defaults are the course referee's; the rest is the
    `[match]` table's; and whether the colours are drawn at random (a schedule gives them)."""

    random_assignment: bool = True

    @classmethod
    def folded(
        cls, time_control: TimeSettings, match: MatchTable, *, random_assignment: bool
    ) -> MatchSettings:
        """A config's two tables folded into one."""
        values = {name: getattr(time_control, name) for name in TimeSettings.model_fields}
        values |= {name: getattr(match, name) for name in MatchTable.model_fields}
        return cls(**values, random_assignment=random_assignment)


class MatchConfig(BaseModel):
    """A config's `[time_control]` and `[match]` tables (a tournament's, an arena's), folded
    into one `MatchSettings` when the config is validated: a bad setting is found when the
    file is read, and every game of a run is played with the same settings object."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    time_control: TimeSettings = Field(default_factory=TimeSettings)
    match: MatchTable = Field(default_factory=MatchTable)
    _settings: MatchSettings = PrivateAttr()

    @model_validator(mode="after")
    def _fold_time_control(self) -> Self:
        # The colours of a config's games come from its schedule, never drawn at random.
        self._settings = MatchSettings.folded(
            self.time_control, self.match, random_assignment=False
        )
        return self

    def match_settings(self) -> MatchSettings:
        """How each game is refereed, as built when the config was validated."""
        return self._settings

    def match_entries(self) -> dict[str, Any]:
        """The `[match]` table as the file wrote it (JSON's types): what it left out, left out
        (for a config made from this one's, whose own `[match]` goes over it)."""
        return self.match.model_dump(mode="json", exclude_unset=True)
