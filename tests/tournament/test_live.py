"""The live display renders progress, standings, games in progress and the latest games."""

from __future__ import annotations

import trio
import trio.testing
from rich.console import Console

from protocols.base import Reason, Side
from referee.records import Result, utc_now
from referee.tournament.events import GameFinished
from referee.tournament.runner import RunningGame, RunState, finished_event
from referee.tournament.schedule import ScheduledGame
from referee.tournament.standings import GameResult
from referee.views.tournament_live import LiveDisplay


async def test_the_live_display_shows_the_whole_state() -> None:
    state = RunState(players=["ann", "bob", "cat"], total=6)
    state.results.append(GameResult("ann", "bob", Side.BLUE, Reason.NO_LEGAL_MOVE))
    state.running[2] = RunningGame(ScheduledGame(2, 2, "cat", "ann", 5), 1, "games/0002.jsonl", 0)
    state.running[2].plies = 17
    finished = {"attempt": 1, "detail": "", "blue": "ann", "orange": "bob"}
    state.recent.appendleft(
        GameFinished(
            number=1,
            result="blue",
            winner="ann",
            reason=Reason.NO_LEGAL_MOVE,
            plies=40,
            record="games/0001.jsonl",
            **finished,  # type: ignore[arg-type]
        )
    )
    state.recent.appendleft(
        GameFinished(
            number=3,
            result="void",
            winner=None,
            reason=Reason.INFRASTRUCTURE,
            plies=0,
            record="games/0003.jsonl",
            replay=True,
            **finished,  # type: ignore[arg-type]
        )
    )
    console = Console(record=True, width=120)
    display = LiveDisplay(console, state, "cup")
    console.print(display.render())
    text = console.export_text()
    assert "cup  1/6 games  1 playing" in text
    assert "Standings" in text and "Playing" in text and "Latest games" in text
    standings = text[text.index("Standings") : text.index("Playing")]
    assert standings.index("ann") < standings.index("bob")
    assert "17" in text[text.index("Playing") :]  # plies of the game in progress
    assert "void, replayed later" in text and "infrastructure" in text


async def test_the_bar_and_the_tables_each_have_lines_of_their_own() -> None:
    state = RunState(players=["ann", "bob"], total=2)
    state.results.append(GameResult("ann", "bob", Side.BLUE, Reason.NO_LEGAL_MOVE))
    console = Console(record=True, width=80, color_system=None)
    console.print(LiveDisplay(console, state, "cup").render())
    console.print("what follows")
    lines = console.export_text().splitlines()
    bar = next(i for i, line in enumerate(lines) if "━" in line and "┃" not in line)
    assert lines[bar].strip("━╺╸ ") == ""  # nothing shares the bar's line
    assert lines[bar + 1].strip() in ("", "Standings")
    assert lines[-2].strip() == "" and lines[-1] == "what follows"


async def test_a_double_forfeit_is_named_so_and_lost_by_both_never_a_draw() -> None:
    game = ScheduledGame(1, 1, "ann", "bob", 5)
    result = Result(
        winner=None,
        reason=Reason.CRASH,
        detail="neither player could start (blue: ...; orange: ...)",
        plies=0,
        finished_at=utc_now(),
    )
    event = finished_event(game, RunningGame(game, 1, "games/0001.jsonl", 0), result, False)
    assert (event.result, event.winner) == ("double-forfeit", None)
    state = RunState(players=["ann", "bob"], total=2)
    state.results.append(GameResult("ann", "bob", None, Reason.CRASH))
    state.recent.appendleft(event)
    console = Console(record=True, width=120, color_system=None)
    console.print(LiveDisplay(console, state, "cup").render())
    text = console.export_text()
    latest = text[text.index("Latest games") :]
    assert "double forfeit" in latest and "draw" not in latest
    standings = text[text.index("Standings") : text.index("Latest games")]
    for name in ("ann", "bob"):  # games, W, D, L: a loss each
        row = next(line for line in standings.splitlines() if f" {name} " in line)
        assert [cell.strip() for cell in row.split("│")][3:7] == ["1", "0", "0", "1"], row


async def test_a_short_run_is_timed_in_tenths_never_said_to_take_0s(
    autojump_clock: trio.testing.MockClock,
) -> None:
    state = RunState(players=["ann", "bob"], total=1)
    state.results.append(GameResult("ann", "bob", Side.BLUE, Reason.NO_LEGAL_MOVE))
    console = Console(record=True, width=120, color_system=None)
    display = LiveDisplay(console, state, "cup")
    await trio.sleep(2.94)
    console.print(display.render())
    assert "done in 2.9s" in console.export_text()
    await trio.sleep(60.0)  # past 10 s, whole seconds are enough
    console.print(display.render())
    assert "done in 1m02s" in console.export_text()
