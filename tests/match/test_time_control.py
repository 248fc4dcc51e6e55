"""Time control on trio's virtual clock: the move limit, grace, start-up allowance, game clocks,
referee lag and output out of turn, with in-memory players (`fake_player.py`).

Every test runs under `autojump_clock`: the players' delays are exact and cost no real time, so
an answer a millisecond inside the limit and one a millisecond outside it can both be tested.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from protocols.base import Reason, Side
from referee.bot import BotExit
from referee.exchange import BotFault, PlayerEvents
from referee.isolation.levels import BASIC_ISOLATION
from referee.match import driver
from referee.match.clock import Clock
from referee.match.host import Host, choose_host
from referee.match.lag import LagMonitor
from referee.match.seats import START_FAILURE_WAIT
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec
from referee.records import GameRecord, TimeControl, read_record
from tests.games import order_of
from tests.match.fake_player import BotEnd, FakePlayers, Program, plays
from tests.scriptbots import quiet_opening

MOVES = quiet_opening(20)  # ends in a draw by the no-capture limit after 20 plies
BLUE_MOVES, ORANGE_MOVES = MOVES[0::2], MOVES[1::2]
EPSILON = 0.001


def settings_of(**values: Any) -> MatchSettings:
    return MatchSettings(**{"exit_grace": 0.3, "random_assignment": False, **values})


HOST = Host(BASIC_ISOLATION)  # nothing to confine: the players are in memory


async def play(
    blue: Program, orange: Program, settings: MatchSettings, tmp_path: Path | None = None, **kw: Any
) -> GameRecord:
    """Play blue against orange in memory; with `tmp_path`, also check the record on disk."""
    in_memory = (PlayerSpec(name="blue", command="-"), PlayerSpec(name="orange", command="-"))
    record = await driver.play(
        order_of("lasker-morris", *in_memory, settings=settings),
        HOST,
        record_path=tmp_path / "game.jsonl" if tmp_path else None,
        open_player=FakePlayers({"blue": blue, "orange": orange}),
        **kw,
    )
    if tmp_path is not None:
        assert read_record(tmp_path / "game.jsonl") == record
    return record


def clock_left(record: GameRecord, side: Side) -> float:
    """What is left on `side`'s game clock after the game: its moves' times charged in turn."""
    clock = Clock.of(record.header.time_control)
    for ply in record.plies:
        if ply.side is side:
            clock.charge(ply.time_ms / 1000)
    return clock.remaining


async def play_with(players: FakePlayers) -> GameRecord:
    in_memory = (PlayerSpec(name="blue", command="-"), PlayerSpec(name="orange", command="-"))
    order = order_of("lasker-morris", *in_memory, settings=settings_of())
    return await driver.play(order, HOST, open_player=players)


def verdict_of(record: GameRecord) -> tuple[Side | None, Reason, int]:
    assert record.result is not None
    return record.result.winner, record.result.reason, record.result.plies


# -- the move limit, grace and start-up allowance --------------------------------------------


@pytest.mark.parametrize(
    ("grace", "delay", "taken"),
    [
        (0.5, 1.5 - EPSILON, True),
        (0.5, 1.5 + EPSILON, False),
        (0.0, 1.0 - EPSILON, True),
        (0.0, 1.0 + EPSILON, False),
    ],
)
async def test_an_answer_is_taken_up_to_the_move_limit_plus_grace_and_not_after(
    autojump_clock: trio.testing.MockClock, grace: float, delay: float, taken: bool
) -> None:
    # Blue's second move (its first has the start-up allowance) comes after `delay` seconds.
    settings = settings_of(move_timeout=1.0, grace=grace, startup_allowance=2.0)
    blue = plays(BLUE_MOVES[:2], [0.0, delay])
    record = await play(blue, plays(ORANGE_MOVES), settings)
    if taken:
        assert record.plies[2].time_ms == pytest.approx(delay * 1000)
        # It then has no third move: that one times out.
        assert verdict_of(record) == (Side.ORANGE, Reason.TIMEOUT, 4)
    else:
        assert verdict_of(record) == (Side.ORANGE, Reason.TIMEOUT, 2)


@pytest.mark.parametrize(("grace", "plies"), [(0.5, 20), (0.0, 0)])
async def test_the_grace_is_tolerated_on_every_move(
    autojump_clock: trio.testing.MockClock, grace: float, plies: int
) -> None:
    # Every move of blue is 0.2 s over the limit: inside the grace, the game is played out.
    settings = settings_of(move_timeout=1.0, grace=grace, startup_allowance=0.0)
    record = await play(plays(BLUE_MOVES, [1.2] * 10), plays(ORANGE_MOVES), settings)
    if plies:
        assert verdict_of(record) == (None, Reason.NO_CAPTURE_LIMIT, plies)
    else:
        assert verdict_of(record) == (Side.ORANGE, Reason.TIMEOUT, 0)


async def test_the_start_up_allowance_is_for_each_players_first_move_only(
    autojump_clock: trio.testing.MockClock,
) -> None:
    settings = settings_of(move_timeout=1.0, grace=0.5, startup_allowance=2.0)
    slow = 3.5 - EPSILON  # inside limit + grace + allowance, far outside limit + grace
    record = await play(plays(BLUE_MOVES, [slow, slow]), plays(ORANGE_MOVES, [slow]), settings)
    assert [p.side for p in record.plies] == [Side.BLUE, Side.ORANGE]
    assert verdict_of(record) == (Side.ORANGE, Reason.TIMEOUT, 2)

    no_allowance = settings.model_copy(update={"startup_allowance": 0.0})
    record = await play(plays(BLUE_MOVES, [slow]), plays(ORANGE_MOVES), no_allowance)
    assert verdict_of(record) == (Side.ORANGE, Reason.TIMEOUT, 0)


async def test_a_bot_that_stops_answering_loses_on_time(
    autojump_clock: trio.testing.MockClock,
) -> None:
    settings = settings_of(move_timeout=0.3, grace=0.1, startup_allowance=2.0)
    start = trio.current_time()
    record = await play(plays(BLUE_MOVES), plays(ORANGE_MOVES[:1], hang=True), settings)
    assert verdict_of(record) == (Side.BLUE, Reason.TIMEOUT, 3)
    assert record.result is not None and record.result.bots[Side.ORANGE].killed
    # Its second move was due 0.4 s after it was asked; then it had its exit grace to leave.
    assert trio.current_time() - start == pytest.approx(0.4 + 0.3)


# -- game clocks ---------------------------------------------------------------------------------


async def test_a_bot_that_runs_out_of_its_game_clock_loses_on_time(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    settings = settings_of(move_timeout=5, grace=0.05, startup_allowance=3, clock_total=1.0)
    record = await play(plays(BLUE_MOVES, [0.3] * 10), plays(ORANGE_MOVES), settings, tmp_path)
    assert verdict_of(record)[:2] == (Side.ORANGE, Reason.TIMEOUT)
    assert record.result is not None and "game clock" in record.result.detail
    # The first move is free (start-up), then 0.7, 0.4 and 0.1 s are left: the fifth is late,
    # even though the per-move limit (5 s) would have allowed it.
    assert len([p for p in record.plies if p.side is Side.BLUE]) == 4
    assert clock_left(record, Side.BLUE) == pytest.approx(0.1)
    header = read_record(tmp_path / "game.jsonl").header
    assert (header.time_control.clock_total, header.time_control.clock_increment) == (1.0, 0.0)


async def test_the_start_up_allowance_is_not_charged_to_the_game_clock(
    autojump_clock: trio.testing.MockClock,
) -> None:
    settings = settings_of(move_timeout=5, grace=0.05, startup_allowance=3, clock_total=1.0)
    # 2.9 s is more than the whole clock, but inside the allowance: nothing is charged.
    blue = plays(BLUE_MOVES, [2.9, 0.3])
    record = await play(blue, plays(ORANGE_MOVES), settings)
    assert clock_left(record, Side.BLUE) == pytest.approx(1.0 - 0.3)
    assert record.plies[0].time_ms == pytest.approx(2900)
    # Past the allowance only the excess is charged: 3.5 s costs 0.5 s of the clock.
    record = await play(plays(BLUE_MOVES, [3.5]), plays(ORANGE_MOVES), settings)
    assert clock_left(record, Side.BLUE) == pytest.approx(0.5)


async def test_an_increment_keeps_a_steady_bot_in_the_game(
    autojump_clock: trio.testing.MockClock,
) -> None:
    settings = settings_of(
        move_timeout=0.1, grace=0.05, startup_allowance=3, clock_total=1.0, clock_increment=0.6
    )
    record = await play(plays(BLUE_MOVES, [0.3] * 10), plays(ORANGE_MOVES), settings)
    # The per-move limit (0.1 s) does not apply with a clock: the game is drawn by its rules.
    assert verdict_of(record) == (None, Reason.NO_CAPTURE_LIMIT, 20)
    # 1.0 + 0.6 after the free first move, then +0.3 net for each of the nine others.
    assert clock_left(record, Side.BLUE) == pytest.approx(1.6 + 9 * 0.3)


# -- the referee's own lag ---------------------------------------------------------------------


async def lag_at(monitor: LagMonitor, when: float, lag: float) -> None:
    """The monitor sees the loop wake up `lag` seconds late at `when`."""
    await trio.sleep_until(when)
    monitor.record(trio.current_time(), lag)


@pytest.mark.parametrize(
    ("lag", "voided"), [(0.4, True), (0.25 + EPSILON, True), (0.25, False), (0.1, False)]
)
async def test_a_timeout_while_the_referee_lagged_more_than_the_threshold_is_void(
    autojump_clock: trio.testing.MockClock, lag: float, voided: bool
) -> None:
    settings = settings_of(move_timeout=0.5, grace=0.0, startup_allowance=3.0)
    monitor = LagMonitor()
    async with trio.open_nursery() as nursery:
        # Blue never answers and times out at 3.5 s; the referee lagged at 2.0 s.
        nursery.start_soon(lag_at, monitor, 2.0, lag)
        record = await play(plays([]), plays(ORANGE_MOVES), settings, lag_monitor=monitor)
    assert record.result is not None
    if voided:
        assert verdict_of(record) == (None, Reason.REFEREE_OVERLOAD, 0) and record.result.void
        assert "lagged" in record.result.detail
    else:
        assert verdict_of(record) == (Side.ORANGE, Reason.TIMEOUT, 0) and not record.result.void


async def test_lag_before_the_move_does_not_void_its_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    settings = settings_of(move_timeout=0.5, grace=0.0, startup_allowance=3.0)
    monitor = LagMonitor()
    async with trio.open_nursery() as nursery:
        # The referee lagged during blue's first move (answered at 1.0 s); orange never answers.
        nursery.start_soon(lag_at, monitor, 0.5, 0.4)
        blue = plays(BLUE_MOVES, [1.0])
        record = await play(blue, plays([]), settings, lag_monitor=monitor)
    assert verdict_of(record) == (Side.BLUE, Reason.TIMEOUT, 1)


async def stall_at(clock: trio.testing.MockClock, when: float, seconds: float) -> None:
    await trio.sleep_until(when)
    clock.jump(seconds)  # no checkpoint: the whole referee stalls, as on an overloaded machine


@pytest.mark.parametrize("monitored", [True, False])
async def test_a_timeout_during_referee_lag_voids_the_game(
    autojump_clock: trio.testing.MockClock, monitored: bool
) -> None:
    settings = settings_of(move_timeout=0.5, grace=0.0, startup_allowance=3.0)
    # Without a monitor, the referee still sees that it looked at the deadline 1 s late.
    monitor = LagMonitor() if monitored else None
    async with trio.open_nursery() as nursery:
        if monitor is not None:
            nursery.start_soon(monitor.run)
        # Blue never answers and times out at 3.5 s; the referee stalls from 3.0 s to 4.5 s.
        nursery.start_soon(stall_at, autojump_clock, 3.0, 1.5)
        record = await play(plays([]), plays(ORANGE_MOVES), settings, lag_monitor=monitor)
        nursery.cancel_scope.cancel()
    assert record.result is not None
    assert record.result.reason is Reason.REFEREE_OVERLOAD and record.result.void
    assert record.result.winner is None and "lagged" in record.result.detail
    lagged = float(record.result.detail.split("lagged ")[1].split(" s")[0])
    if monitored:  # the stall itself, measured from the monitor's last tick (0.05 s apart)
        assert 1.45 - EPSILON < lagged < 1.5 + EPSILON
    else:  # only how late the deadline was looked at
        assert lagged == pytest.approx(1.0)


async def test_a_timeout_without_lag_is_a_timeout(autojump_clock: trio.testing.MockClock) -> None:
    settings = settings_of(move_timeout=0.3, grace=0.0, startup_allowance=3.0)
    monitor = LagMonitor()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(monitor.run)
        record = await play(plays(BLUE_MOVES), plays([]), settings, lag_monitor=monitor)
        nursery.cancel_scope.cancel()
    assert verdict_of(record) == (Side.BLUE, Reason.TIMEOUT, 1)
    assert monitor.max_lag == 0.0


async def test_the_lag_monitor_sees_a_stall_even_before_it_ticks_again(
    autojump_clock: trio.testing.MockClock,
) -> None:
    monitor = LagMonitor(interval=0.02)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(monitor.run)
        await trio.sleep(0.1)
        start = trio.current_time()
        autojump_clock.jump(0.4)  # a stall: the ticker cannot run
        # Right after the stall, the ticker has not run yet: the stall is still seen.
        assert monitor.lag_between(start, trio.current_time()) > 0.3
        await trio.sleep(0.1)
        assert monitor.lag_between(start, trio.current_time()) > 0.3
        assert monitor.lag_between(trio.current_time(), trio.current_time() + 1) < 0.3
        nursery.cancel_scope.cancel()


# -- output out of turn ------------------------------------------------------------------------


async def test_idle_bot_writing_out_of_turn_loses_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async def eager(bot: BotEnd) -> int:
        await bot.hear()  # its colour
        await trio.sleep(1.0)
        bot.say("h2 a1 r0")  # while blue is still thinking
        await trio.sleep_forever()
        return 0

    settings = settings_of(move_timeout=60.0)
    start = trio.current_time()
    record = await play(plays(BLUE_MOVES, [30.0]), eager, settings)
    assert verdict_of(record) == (Side.BLUE, Reason.OUT_OF_TURN, 0)
    assert record.result is not None and record.result.loser_line == "h2 a1 r0"
    # Blue's wait was cut short at 1.0 s, long before its answer at 30 s; before any move, blue
    # has START_FAILURE_WAIT to show that it never started (then neither would win); then both
    # sides had their exit grace at the same time, not one after the other.
    assert trio.current_time() - start == pytest.approx(1.0 + START_FAILURE_WAIT + 0.3)


async def test_a_second_line_right_after_a_move_is_out_of_turn(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async def chatty(bot: BotEnd) -> int:
        await bot.hear()
        await trio.sleep(0.2)
        bot.say(BLUE_MOVES[0])
        bot.say("and another thing")
        await trio.sleep_forever()
        return 0

    record = await play(chatty, plays(ORANGE_MOVES), settings_of())
    # The answer is judged and played first; the move did not end the game, so the line that
    # followed it is out of turn and loses.
    assert verdict_of(record) == (Side.ORANGE, Reason.OUT_OF_TURN, 1)
    assert record.result is not None and record.result.loser_line == "and another thing"


async def test_a_crash_ends_the_game_at_once(autojump_clock: trio.testing.MockClock) -> None:
    async def crashes(bot: BotEnd) -> int:
        await bot.hear()
        await trio.sleep(0.5)
        return 3

    start = trio.current_time()
    record = await play(crashes, plays(ORANGE_MOVES), settings_of(move_timeout=60.0))
    assert verdict_of(record) == (Side.ORANGE, Reason.CRASH, 0)
    assert record.result is not None and "exited with code 3" in record.result.detail
    report = record.result.bots[Side.BLUE]
    assert (report.exit_code, report.killed) == (3, False)
    assert trio.current_time() - start < 60.0


# -- the record ----------------------------------------------------------------------------------


async def test_the_header_holds_the_time_control_of_the_settings(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    settings = settings_of(move_timeout=2.0, grace=0.25, clock_total=60.0, clock_increment=1.0)
    await play(plays(BLUE_MOVES), plays(ORANGE_MOVES), settings, tmp_path)
    header = json.loads((tmp_path / "game.jsonl").read_text().splitlines()[0])
    # The same shape as always: the five fields, none of the match's other settings.
    assert header["time_control"] == {
        "move_timeout": 2.0,
        "grace": 0.25,
        "startup_allowance": 5.0,
        "clock_total": 60.0,
        "clock_increment": 1.0,
    }
    assert type(read_record(tmp_path / "game.jsonl").header.time_control) is TimeControl


async def test_the_header_names_the_isolation_level_chosen_not_the_one_asked_for(
    autojump_clock: trio.testing.MockClock,
) -> None:
    settings = settings_of()
    assert settings.isolation.level == "auto"
    host = choose_host(settings.isolation)  # as a run does, once
    in_memory = (PlayerSpec(name="blue", command="-"), PlayerSpec(name="orange", command="-"))
    order = order_of("lasker-morris", *in_memory, settings=settings)
    players = FakePlayers({"blue": plays(BLUE_MOVES), "orange": plays(ORANGE_MOVES)})
    record = await driver.play(order, host, open_player=players)
    assert record.header.confinement is not None
    assert record.header.confinement["isolation"] == host.isolation.name != "auto"


# -- what follows a move: judged after the move, and never after a game-ending one ------------


def then_says(moves: list[str], after: str, *, at_end_only: bool = True) -> Program:
    """Plays `moves`; right after its last one (or after every one) it also writes `after`."""

    async def program(bot: BotEnd) -> int:
        line = await bot.hear()
        if line == "orange":
            line = await bot.hear()
        for number, move in enumerate(moves):
            if line in ("END", ""):
                return 0
            bot.say(move)
            if not at_end_only or number == len(moves) - 1:
                bot.say(after)
            line = await bot.hear()
        while line not in ("END", ""):
            line = await bot.hear()
        return 0

    return program


async def test_a_message_after_the_drawing_move_is_kept_not_judged(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    # Orange's tenth move is the 20th quiet ply: a draw. It then prints a message at once.
    orange = then_says(ORANGE_MOVES, "Draw_game!")
    record = await play(plays(BLUE_MOVES), orange, settings_of(), tmp_path)
    assert verdict_of(record) == (None, Reason.NO_CAPTURE_LIMIT, 20)
    assert record.plies[-1].move == ORANGE_MOVES[-1]  # the final move is recorded
    assert record.result is not None
    assert record.result.bots[Side.ORANGE].unasked == ["Draw_game!"]


async def test_a_message_after_an_ordinary_move_is_out_of_turn(
    autojump_clock: trio.testing.MockClock,
) -> None:
    orange = then_says(ORANGE_MOVES, "thinking...", at_end_only=False)
    record = await play(plays(BLUE_MOVES), orange, settings_of())
    assert verdict_of(record) == (Side.BLUE, Reason.OUT_OF_TURN, 2)
    assert record.result is not None and record.result.loser_line == "thinking..."


async def test_a_debug_line_before_the_move_is_named_in_the_verdict(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async def debugging(bot: BotEnd) -> int:
        await bot.hear()
        bot.say("depth 3 score=12")
        bot.say(BLUE_MOVES[0])
        await trio.sleep_forever()
        return 0

    record = await play(debugging, plays(ORANGE_MOVES), settings_of())
    assert verdict_of(record) == (Side.ORANGE, Reason.BAD_SYNTAX, 0)
    assert record.result is not None and record.result.loser_line == "depth 3 score=12"


# -- opening and closing the players ---------------------------------------------------------


async def test_both_players_are_opened_at_once(autojump_clock: trio.testing.MockClock) -> None:
    start = trio.current_time()
    players = FakePlayers({"blue": plays(BLUE_MOVES), "orange": plays(ORANGE_MOVES)}, 2.0)
    record = await play_with(players)
    assert verdict_of(record) == (None, Reason.NO_CAPTURE_LIMIT, 20)
    # Each player takes 2 s to open and then plays instantly, leaving at END: the whole game
    # takes 2 s, not 4 (opened one after the other).
    assert trio.current_time() - start == pytest.approx(2.0)


async def test_an_orange_bot_dead_before_its_colour_loses_by_crash() -> None:
    async def dies(bot: BotEnd) -> int:
        return 3

    players = FakePlayers({"blue": plays(BLUE_MOVES), "orange": dies})
    record = await play_with(players)
    assert verdict_of(record) == (Side.BLUE, Reason.CRASH, 0)
    assert record.result is not None and record.result.detail.startswith("orange: ")


def dies_after(delay: float, code: int = 127) -> Program:
    """A program that exits with `code` after `delay` seconds, having read nothing."""

    async def program(bot: BotEnd) -> int:
        await trio.sleep(delay)
        return code

    return program


@pytest.mark.parametrize(
    ("blue_dies", "orange_dies"),
    [
        (0.05, 0.0),  # orange is dead before its colour line; blue dies a moment later
        (0.0, 0.05),  # blue dies asked for its first move; orange a moment later
        (0.0, 0.0),
        (0.3, 0.0),
    ],
)
async def test_two_bots_that_cannot_start_are_one_verdict_whoever_is_noticed_first(
    autojump_clock: trio.testing.MockClock, blue_dies: float, orange_dies: float
) -> None:
    record = await play(dies_after(blue_dies), dies_after(orange_dies), settings_of())
    assert verdict_of(record) == (None, Reason.CRASH, 0)
    assert record.result is not None
    # Each side's failure is named as the referee found it first: its output closed, or its
    # input no longer read (a dead program's pipe breaks both ways at once).
    died = "(closed its output|stopped reading its input): exited with code 127"
    pattern = rf"neither player could start \(blue: {died}; orange: {died}\)"
    assert re.fullmatch(pattern, record.result.detail), record.result.detail


async def test_a_bot_that_cannot_start_loses_to_one_that_is_only_slow(
    autojump_clock: trio.testing.MockClock,
) -> None:
    slow = plays(BLUE_MOVES, [3.0])  # blue answers its first move after 3 s, within its limit
    record = await play(slow, dies_after(0.0), settings_of())
    assert verdict_of(record) == (Side.BLUE, Reason.CRASH, 0)
    record = await play(dies_after(0.0), plays(ORANGE_MOVES), settings_of())
    assert verdict_of(record) == (Side.ORANGE, Reason.CRASH, 0)


NOT_A_PROGRAM = "could not start: './somedir' is a directory, not a program"


async def play_unstartable(unstartable: str, other: Program, settings: MatchSettings) -> GameRecord:
    """A game in which `unstartable` ("blue" or "orange") cannot be started at all."""
    programs = {"blue": other, "orange": other}
    in_memory = (PlayerSpec(name="blue", command="-"), PlayerSpec(name="orange", command="-"))
    order = order_of("lasker-morris", *in_memory, settings=settings)
    players = FakePlayers(programs, unstartable={unstartable: NOT_A_PROGRAM})
    return await driver.play(order, HOST, open_player=players)


@pytest.mark.parametrize("unstartable", ["blue", "orange"])
@pytest.mark.parametrize("dies", [0.0, 0.3])
async def test_a_bot_that_cannot_be_started_and_one_that_exits_before_moving_neither_win(
    autojump_clock: trio.testing.MockClock, unstartable: str, dies: float
) -> None:
    # A folder given as a command, against a script that is not there (the interpreter exits
    # with code 2 before any move): neither started playing, so neither wins.
    record = await play_unstartable(unstartable, dies_after(dies, code=2), settings_of())
    assert verdict_of(record) == (None, Reason.CRASH, 0)
    assert record.result is not None and not record.result.void
    other = "orange" if unstartable == "blue" else "blue"
    detail = record.result.detail
    assert detail.startswith("neither player could start (blue: ")
    assert f"{unstartable}: {NOT_A_PROGRAM}" in detail
    assert f"{other}: closed its output: exited with code 2" in detail


@pytest.mark.parametrize("unstartable", ["blue", "orange"])
async def test_a_bot_that_cannot_be_started_loses_to_one_that_started(
    autojump_clock: trio.testing.MockClock, unstartable: str
) -> None:
    other = plays(BLUE_MOVES if unstartable == "orange" else ORANGE_MOVES)
    record = await play_unstartable(unstartable, other, settings_of())
    winner = Side.ORANGE if unstartable == "blue" else Side.BLUE
    assert verdict_of(record) == (winner, Reason.CRASH, 0)
    assert record.result is not None
    assert record.result.detail == f"{unstartable}: {NOT_A_PROGRAM}"


# -- a bot that never started cannot win ------------------------------------------------------


def moves_then_dies(delay: float, code: int = 1) -> Program:
    """A program that makes its first move, then exits with `code` after `delay` seconds."""

    async def program(bot: BotEnd) -> int:
        await bot.hear()  # its colour
        bot.say(BLUE_MOVES[0])
        await trio.sleep(delay)
        return code

    return program


def hears_colour_then_dies(delay: float, code: int = 0) -> Program:
    """A program that reads its colour and exits with `code` after `delay` seconds."""

    async def program(bot: BotEnd) -> int:
        await bot.hear()
        await trio.sleep(delay)
        return code

    return program


@pytest.mark.parametrize(
    ("blue_dies", "orange_dies"),
    [
        (0.0, 0.05),  # blue exits right after its move; orange a moment later, unasked
        (0.05, 0.0),  # orange is dead when blue's move reaches it; blue exits a moment later
        (0.0, 0.0),
        (0.3, 0.0),
    ],
)
async def test_a_bot_that_never_moved_does_not_win_when_its_opponent_fails_after_a_move(
    autojump_clock: trio.testing.MockClock, blue_dies: float, orange_dies: float
) -> None:
    record = await play(
        moves_then_dies(blue_dies), hears_colour_then_dies(orange_dies), settings_of()
    )
    assert verdict_of(record) == (None, Reason.CRASH, 1)
    assert record.result is not None and not record.result.void
    assert record.result.detail.startswith("neither wins: orange never made a move (blue: ")
    assert "exited with code 1; orange: " in record.result.detail


async def test_a_bot_that_moved_and_lives_wins_when_the_other_dies_before_its_first_move(
    autojump_clock: trio.testing.MockClock,
) -> None:
    record = await play(plays(BLUE_MOVES), hears_colour_then_dies(0.05), settings_of())
    assert verdict_of(record) == (Side.BLUE, Reason.CRASH, 1)


def writes_unasked(delay: float, line: str = "h1 d1 r0") -> Program:
    """A program that writes `line` after `delay` seconds, asked or not (a bot that talks
    first), then reads until the end."""

    async def program(bot: BotEnd) -> int:
        await trio.sleep(delay)
        bot.say(line)
        while await bot.hear() not in ("END", ""):
            pass
        return 0

    return program


# Blue's failure is named as the referee found it first: its output closed, or its input no
# longer read (a dead program's pipe breaks both ways at once).
NEVER_STARTED_AND_OUT_OF_TURN = (
    r"neither player started playing \(blue: (closed its output|stopped reading its input): "
    r"exited with code 3; orange: wrote a line when it was not its turn\)"
)


@pytest.mark.parametrize(
    ("blue_dies", "orange_writes"),
    [
        (0.0, 0.05),  # blue's crash is noticed first, orange's line a moment later
        (0.05, 0.0),  # orange's line first, while blue is asked; blue's crash a moment later
        (0.3, 0.0),
    ],
)
async def test_a_bot_that_never_started_does_not_win_by_its_opponents_line_out_of_turn(
    autojump_clock: trio.testing.MockClock, blue_dies: float, orange_writes: float
) -> None:
    record = await play(dies_after(blue_dies, code=3), writes_unasked(orange_writes), settings_of())
    assert verdict_of(record) == (None, Reason.CRASH, 0)
    assert record.result is not None and not record.result.void
    assert re.fullmatch(NEVER_STARTED_AND_OUT_OF_TURN, record.result.detail), record.result.detail


async def test_a_bot_that_cannot_be_started_does_not_win_by_its_opponents_line_out_of_turn(
    autojump_clock: trio.testing.MockClock,
) -> None:
    record = await play_unstartable("blue", writes_unasked(0.0), settings_of())
    assert verdict_of(record) == (None, Reason.CRASH, 0)
    assert record.result is not None
    assert record.result.detail == (
        f"neither player started playing (blue: {NOT_A_PROGRAM}; "
        "orange: wrote a line when it was not its turn)"
    )


async def test_an_illegal_first_move_against_a_bot_that_never_started_wins_for_neither(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # Blue's first answer is illegal; orange dies a moment after it, before its first move.
    record = await play(plays(["h9 z9 r9"]), dies_after(0.05, code=3), settings_of())
    assert verdict_of(record) == (None, Reason.CRASH, 0)
    assert record.result is not None
    assert record.result.detail.startswith("neither player started playing (blue: ")
    assert "orange: closed its output: exited with code 3" in record.result.detail


async def test_an_answer_cut_short_by_the_others_crash_is_no_fault(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # Orange dies at once, while blue thinks about its first move; blue's answer then arrives
    # unasked, but blue was playing: it wins.
    record = await play(plays(BLUE_MOVES, [0.2]), dies_after(0.0, code=3), settings_of())
    assert verdict_of(record) == (Side.BLUE, Reason.CRASH, 0)
    assert record.result is not None and record.result.detail.startswith("orange: ")


@pytest.mark.parametrize("orange", [dies_after(0.0, 0), writes_unasked(0.0)])
async def test_a_bot_that_fails_on_its_colour_does_not_win_when_the_other_failed_before_it(
    autojump_clock: trio.testing.MockClock, orange: Program
) -> None:
    # Orange fails before blue is sent its colour (dead at once, or a line out of turn): blue
    # is still asked, and fails on it: a bot that never started cannot win.
    record = await play(hears_colour_then_dies(0.0), orange, settings_of())
    assert verdict_of(record) == (None, Reason.CRASH, 0)
    assert record.result is not None and record.result.detail.startswith("neither player ")


async def test_a_bot_that_answers_its_colour_wins_when_the_other_failed_before_it(
    autojump_clock: trio.testing.MockClock,
) -> None:
    record = await play(plays(BLUE_MOVES), dies_after(0.0, 0), settings_of())
    assert verdict_of(record) == (Side.BLUE, Reason.CRASH, 0)


# -- an answer read in the very moment its deadline passes ---------------------------------------


class Direct:
    """A player whose answers reach the match straight from its own task, with no reader in
    between: an answer given at a deadline is then heard in the same moment as the deadline."""

    def __init__(
        self, events: PlayerEvents, answers: list[float | None], blocked: float = 0.0
    ) -> None:
        self.events = events
        self.answers = answers  # for each question: seconds until the answer (None: never)
        self.blocked = blocked  # how long writing each question takes (a full pipe)
        self.fault: BotFault | None = None
        self.exit: BotExit | None = None
        self.last_cpu_ms: float | None = None
        self.isolation_level: str | None = None
        self.isolation_note: str | None = None
        self._questions = trio.open_memory_channel[float](math.inf)

    async def prompt(self, line: str) -> None:
        self._questions[0].send_nowait(trio.current_time())
        if self.blocked:
            await trio.sleep(self.blocked)  # its answer may come before the write is done

    async def send_line(self, line: str) -> None:
        pass

    async def notify(self, line: str, timeout: float) -> bool:
        return True

    def timeout_fault(self) -> BotFault:
        return BotFault(Reason.TIMEOUT, "no complete line within the time limit")

    def stop_waiting(self) -> None:
        pass

    async def run(self, moves: list[str]) -> None:
        for delay, move in zip(self.answers, moves, strict=False):
            asked = await self._questions[1].receive()
            if delay is None:
                break
            await trio.sleep_until(asked + delay)
            await self.events.answered(self, move)
        await trio.sleep_forever()


def direct_players(plans: dict[str, tuple[list[float | None], list[str], float]]) -> Any:
    """An `OpenPlayer` of `Direct` players: for each, (answers' delays, moves, blocked)."""

    @asynccontextmanager
    async def open_direct(
        player: PlayerSpec, opponent: PlayerSpec, s: MatchSettings, i: Any, events: Any
    ) -> AsyncIterator[Direct]:
        answers, moves, blocked = plans[player.name]
        direct = Direct(events, list(answers), blocked)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(direct.run, moves)
            yield direct
            direct.exit = BotExit(0, False, "", 0)
            nursery.cancel_scope.cancel()

    return open_direct


@pytest.mark.parametrize("raced", ["the final move", "an ordinary move"])
async def test_an_answer_racing_the_write_of_its_question_is_judged_after_the_move(
    autojump_clock: trio.testing.MockClock, raced: str
) -> None:
    # Writing each question to blue takes 0.5 s (its pipe is full), and blue answers 0.1 s
    # after it was asked: before the move it answers is written. The game's last move (the
    # 20th ply, orange's) is one blue answers too, with a move of its own.
    settings = settings_of(move_timeout=1.0, grace=0.5, startup_allowance=2.0)
    blue_moves = [*BLUE_MOVES, "h1 a1 r0"] if raced == "the final move" else BLUE_MOVES
    plans = {
        "blue": ([0.0] + [0.1] * 10, blue_moves, 0.5),
        "orange": ([0.0] * 10, ORANGE_MOVES, 0.0),
    }
    in_memory = (PlayerSpec(name="blue", command="-"), PlayerSpec(name="orange", command="-"))
    order = order_of("lasker-morris", *in_memory, settings=settings)
    record = await driver.play(order, HOST, open_player=direct_players(plans))
    # The 20th ply ends the game by the rules: what blue says to it is not a move of the game,
    # and every earlier raced answer was its move, judged once the question was written.
    assert verdict_of(record) == (None, Reason.NO_CAPTURE_LIMIT, 20)
    assert [p.move for p in record.plies] == MOVES


async def test_an_answer_heard_as_its_deadline_passes_never_blames_the_opponent(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # Blue's first answer comes exactly at its deadline, heard (by chance) before or after the
    # match sees the deadline pass; then orange answers at once and blue never again.
    settings = settings_of(move_timeout=1.0, grace=0.5, startup_allowance=2.0)
    plans = {"blue": ([3.5, None], BLUE_MOVES), "orange": ([0.0], ORANGE_MOVES)}

    @asynccontextmanager
    async def open_direct(
        player: PlayerSpec, opponent: PlayerSpec, s: MatchSettings, i: Any, events: Any
    ) -> AsyncIterator[Direct]:
        answers, moves = plans[player.name]
        direct = Direct(events, list(answers))
        async with trio.open_nursery() as nursery:
            nursery.start_soon(direct.run, moves)
            yield direct
            direct.exit = BotExit(0, False, "", 0)
            nursery.cancel_scope.cancel()

    in_memory = (PlayerSpec(name="blue", command="-"), PlayerSpec(name="orange", command="-"))
    verdicts = set()
    for _ in range(40):
        order = order_of("lasker-morris", *in_memory, settings=settings)
        record = await driver.play(order, HOST, open_player=open_direct)
        verdicts.add(verdict_of(record))
    # Taken (then blue times out on its second move), or too late: blue's timeout either way.
    assert verdicts <= {(Side.ORANGE, Reason.TIMEOUT, 2), (Side.ORANGE, Reason.TIMEOUT, 0)}
