"""Game clocks (total + increment) and referee lag: a timeout during referee overload is void."""

from __future__ import annotations

import time
from pathlib import Path

import trio

from protocols.base import Reason, Side
from referee.match import LagMonitor, Match, MatchSettings, PlayerSpec
from referee.records import GameRecord, read_record
from tests.scriptbots import script_bot
from tests.tournament.test_runner import GOOD, SLEEPS

SLOW_GOOD = GOOD.replace(
    "        say(game.format_move(move))",
    "        time.sleep(0.3)\n        say(game.format_move(move))",
)


def settings_of(**values: object) -> MatchSettings:
    # The script bots live in a private temporary folder: no sandbox around them.
    return MatchSettings.model_validate({"isolation": {"level": "basic"}, **values})


async def play(
    tmp_path: Path, blue: str, orange: str, settings: MatchSettings, **kw: object
) -> GameRecord:
    match = Match(
        "lasker-morris",
        PlayerSpec(name="blue", command=blue),
        PlayerSpec(name="orange", command=orange),
        settings=settings.model_copy(update={"random_assignment": False}),
        record_path=tmp_path / "game.jsonl",
        **kw,  # type: ignore[arg-type]
    )
    return await match.play()


async def test_a_bot_that_runs_out_of_its_game_clock_loses_on_time(tmp_path: Path) -> None:
    slow = script_bot(tmp_path, "slow", SLOW_GOOD)
    fast = script_bot(tmp_path, "fast", GOOD)
    settings = settings_of(move_timeout=5, grace=0.05, startup_allowance=3, clock_total=1.0)
    record = await play(tmp_path, slow, fast, settings)
    assert record.result is not None
    assert (record.result.winner, record.result.reason) == (Side.ORANGE, Reason.TIMEOUT)
    assert "game clock" in record.result.detail
    blue_moves = [p for p in record.plies if p.side is Side.BLUE]
    assert 2 <= len(blue_moves) <= 4  # about 1.0 s / 0.3 s per move
    header = read_record(tmp_path / "game.jsonl").header
    assert (header.time_control.clock_total, header.time_control.clock_increment) == (1.0, 0.0)


async def test_an_increment_keeps_a_steady_bot_in_the_game(tmp_path: Path) -> None:
    slow = script_bot(tmp_path, "slow", SLOW_GOOD)
    fast = script_bot(tmp_path, "fast", GOOD)
    settings = settings_of(
        move_timeout=0.1, grace=0.05, startup_allowance=3, clock_total=1.0, clock_increment=0.6
    )
    record = await play(tmp_path, slow, fast, settings)
    assert record.result is not None
    # The per-move limit (0.1 s) does not apply with a clock: the game is drawn by its rules.
    assert record.result.reason is Reason.NO_CAPTURE_LIMIT and len(record.plies) == 20


async def block_loop_at(delay: float, seconds: float) -> None:
    await trio.sleep(delay)
    time.sleep(seconds)  # the whole referee stalls, as on an overloaded machine


async def test_a_timeout_during_referee_lag_voids_the_game(tmp_path: Path) -> None:
    sleeper = script_bot(tmp_path, "sleeper", SLEEPS)
    good = script_bot(tmp_path, "good", GOOD)
    settings = settings_of(move_timeout=0.5, grace=0.0, startup_allowance=3.0)
    monitor = LagMonitor()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(monitor.run)
        # The sleeper (blue) times out at about 3.5 s; the referee stalls from 3.0 s to 4.5 s.
        nursery.start_soon(block_loop_at, 3.0, 1.5)
        record = await play(tmp_path, sleeper, good, settings, lag_monitor=monitor)
        nursery.cancel_scope.cancel()
    assert record.result is not None
    assert record.result.reason is Reason.REFEREE_OVERLOAD and record.result.void
    assert record.result.winner is None and "lagged" in record.result.detail


async def test_a_timeout_without_lag_is_a_timeout(tmp_path: Path) -> None:
    sleeper = script_bot(tmp_path, "sleeper", SLEEPS)
    good = script_bot(tmp_path, "good", GOOD)
    settings = settings_of(move_timeout=0.3, grace=0.0, startup_allowance=3.0)
    monitor = LagMonitor()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(monitor.run)
        record = await play(tmp_path, good, sleeper, settings, lag_monitor=monitor)
        nursery.cancel_scope.cancel()
    assert record.result is not None
    assert (record.result.winner, record.result.reason) == (Side.BLUE, Reason.TIMEOUT)


async def test_the_lag_monitor_sees_a_stall_even_before_it_ticks_again() -> None:
    monitor = LagMonitor(interval=0.02)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(monitor.run)
        await trio.sleep(0.1)
        start = trio.current_time()
        time.sleep(0.4)
        # Right after the stall, the ticker has not run yet: the stall is still seen.
        assert monitor.lag_between(start, trio.current_time()) > 0.3
        await trio.sleep(0.1)
        assert monitor.lag_between(start, trio.current_time()) > 0.3
        assert monitor.lag_between(trio.current_time(), trio.current_time() + 1) < 0.3
        nursery.cancel_scope.cancel()
