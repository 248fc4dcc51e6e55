"""A side's clock: the one place a deadline is computed and time is charged. Pure arithmetic,
checked exactly (every value here is a sum of binary fractions), without a process or a loop."""

from __future__ import annotations

from referee.match.clock import Clock, first_move_budget
from referee.records import TimeControl


def test_per_move_each_move_has_the_limit_and_the_grace_the_first_also_the_allowance() -> None:
    clock = Clock.of(TimeControl(move_timeout=2.0, grace=0.5, startup_allowance=5.0))
    assert clock.budget() == 7.5
    assert clock.deadline(10.0) == 17.5
    clock.charge(6.25)  # inside the allowance: nothing is kept of it
    assert clock.budget() == 2.5
    assert clock.deadline(100.0) == 102.5
    clock.charge(2.25)  # a per-move limit is the same for every move, whatever the last took
    assert clock.budget() == 2.5 and clock.moves == 2


def test_a_game_clock_pays_what_a_move_took_beyond_the_allowance_then_gains_the_increment() -> None:
    control = TimeControl(
        move_timeout=1.0, grace=0.25, startup_allowance=3.0, clock_total=10.0, clock_increment=0.5
    )
    clock = Clock.of(control)
    assert clock.budget() == 10.0 + 0.25 + 3.0  # the whole clock, the grace, the allowance
    assert clock.deadline(4.0) == 17.25
    clock.charge(4.0)  # 1.0 beyond the allowance
    assert clock.remaining == 10.0 - 1.0 + 0.5
    assert clock.budget() == 9.5 + 0.25  # the per-move limit plays no part
    clock.charge(2.0)
    assert clock.remaining == 8.0
    clock.charge(0.0)
    assert clock.remaining == 8.5


def test_the_start_up_allowance_is_never_charged_to_the_game_clock() -> None:
    clock = Clock.of(TimeControl(startup_allowance=3.0, clock_total=1.0))
    clock.charge(2.875)  # more than the whole clock, inside the allowance
    assert clock.remaining == 1.0
    clock.charge(0.25)  # the allowance was for the first move only
    assert clock.remaining == 0.75


def test_a_clock_that_runs_out_stays_at_zero_and_gets_the_increment() -> None:
    # A move inside the grace but past the clock empties it; the increment is still credited.
    control = TimeControl(grace=0.5, startup_allowance=0.0, clock_total=1.0, clock_increment=0.125)
    clock = Clock.of(control)
    clock.charge(1.25)
    assert clock.remaining == 0.125
    assert clock.budget() == 0.625  # what is left, and the grace again


def test_a_trial_start_gets_the_time_of_a_games_first_move() -> None:
    per_move = TimeControl(move_timeout=2.0, grace=0.5, startup_allowance=5.0)
    assert first_move_budget(per_move) == 7.5
    with_clock = TimeControl(move_timeout=2.0, grace=0.5, startup_allowance=5.0, clock_total=60.0)
    assert first_move_budget(with_clock) == 65.5
    assert first_move_budget(with_clock) == Clock.of(with_clock).budget()
