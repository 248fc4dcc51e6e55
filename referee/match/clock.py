"""One side's time: the one place where a deadline is computed and time is charged.

As fastchess's `TimeControl`: one `Clock` per side, asked for the time its side has for the
move it is asked now (`budget`, `deadline`) and told how long the answer took (`charge`). Pure
arithmetic on seconds: the match driver, the pre-flight check of a tournament and `referee
check` all ask it, so a first move is given the same time everywhere.

A side has, for each move, the per-move limit (or, with a game clock, what is left on its
clock), plus the grace, plus on its first move the start-up allowance. A game clock is charged
what the move took beyond the start-up allowance (never below zero), then credited the
increment.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.records import TimeControl


@dataclass
class Clock:
    """The time of one side of one game."""

    control: TimeControl
    remaining: float  # seconds left on its game clock (unused without one)
    moves: int = 0  # answers charged so far

    @classmethod
    def of(cls, control: TimeControl) -> Clock:
        """A fresh clock: no move made, the whole game clock left."""
        return cls(control, control.clock_total or 0.0)

    @property
    def game_clock(self) -> bool:
        return self.control.clock_total is not None

    @property
    def allowance(self) -> float:
        """The start-up allowance, on the side's first move only."""
        return self.control.startup_allowance if self.moves == 0 else 0.0

    def budget(self) -> float:
        """Seconds the side has for the move it is asked now, grace and allowance included."""
        tc = self.control
        base = tc.move_timeout if tc.clock_total is None else self.remaining
        return base + tc.grace + self.allowance

    def deadline(self, asked_at: float) -> float:
        """When the move asked at `asked_at` is due (the same clock as `asked_at`)."""
        tc = self.control
        base = tc.move_timeout if tc.clock_total is None else self.remaining
        return asked_at + base + tc.grace + self.allowance

    def charge(self, elapsed: float) -> None:
        """The side answered after `elapsed` seconds: its game clock pays for the move (the
        start-up allowance is not charged) and gains the increment."""
        if self.control.clock_total is not None:
            used = max(0.0, elapsed - self.allowance)
            self.remaining = max(0.0, self.remaining - used) + self.control.clock_increment
        self.moves += 1


def first_move_budget(control: TimeControl) -> float:
    """Seconds a bot has for its first move of a game (start-up allowance included): what a
    trial start is given to answer."""
    return Clock.of(control).budget()
