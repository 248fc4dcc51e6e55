"""What replaying a format's stages gives: the stages so far, the one being played, the end."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.tournament.formats.base import Stage


@dataclass
class Outcome:
    stages: list[Stage]
    current: str | None  # the stage being played; None once the format has finished
    finished: bool
    placings: list[str] = field(default_factory=list)
    # What decided each player's place, by name ("lost the Final", "out in the Semi-final,
    # seed 3"): where two players could be in either order, the tie-break between them.
    placing_notes: dict[str, str] = field(default_factory=dict)
