"""How a match is refereed: the time control, the bots' confinement and fair CPU, as data."""

from __future__ import annotations

import math

from pydantic import Field, field_validator

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


class MatchSettings(TimeSettings):
    """How a match is refereed: the time defaults are the course referee's; containment and
    fair CPU default to the safe side (`referee play` turns freezing off, as the course does)."""

    exit_grace: float = Field(1.0, ge=0, description="seconds a bot may take to exit after END")
    max_line_bytes: int = Field(4096, ge=16)
    random_assignment: bool = True
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
