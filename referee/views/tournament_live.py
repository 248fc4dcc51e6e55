"""The live display of a running tournament: progress with ETA, standings, games in progress,
the latest finished games; for a staged format, the stage being played, its group tables and
the bracket.

A trio task redraws a rich `Live` twice a second from the run's in-memory state (no store reads,
no per-move work), so it costs the games nothing noticeable. Rich's own refresh thread is off.
"""

from __future__ import annotations

from collections.abc import Callable

import trio
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from referee.tournament.observer import Observer
from referee.tournament.runner import RunState
from referee.views.plain import plain
from referee.views.tournament import finished_table, plan_view, standings_table

REFRESH = 0.5  # seconds between redraws


async def keep_drawn(console: Console, render: Callable[[], RenderableType]) -> None:
    """Redraw `render()` until cancelled; the final frame stays on screen."""
    with Live(console=console, auto_refresh=False, transient=False) as live:
        try:
            while True:
                live.update(render(), refresh=True)
                await trio.sleep(REFRESH)
        finally:
            live.update(render(), refresh=True)


MAX_RUNNING_ROWS = 8
MAX_STANDING_ROWS = 20
MAX_STANDING_ROWS_BESIDE_STAGES = 8  # the stage's tables take the room


class LiveStandings(Observer):
    """The live display of a tournament session's run on `console`, while its games play."""

    def __init__(self, console: Console, title: str) -> None:
        self.console = console
        self.title = title

    async def run(self, state: RunState) -> None:
        await LiveDisplay(self.console, state, self.title).run()


class LiveDisplay:
    def __init__(self, console: Console, state: RunState, title: str) -> None:
        self.console = console
        self.state = state
        self.title = title
        self._started = trio.current_time()

    async def run(self) -> None:
        await keep_drawn(self.console, self.render)

    def render(self) -> RenderableType:
        parts: list[RenderableType] = [self._progress()]
        plan = self.state.plan
        if plan is not None:  # a staged format: the stage's groups, or the bracket so far
            parts.append(plan_view(plan, only_current=True))
        limit = MAX_STANDING_ROWS if plan is None else MAX_STANDING_ROWS_BESIDE_STAGES
        parts.append(standings_table(self.state.standings(), limit=limit))
        if self.state.running:
            parts.append(self._running())
        if self.state.recent:
            parts.append(finished_table(self.state.recent))
        # A blank line last: what is printed after the display never runs into its last row.
        return Group(*parts, Text())

    def _progress(self) -> RenderableType:
        s = self.state
        done = s.finished + s.void
        line = plain(f"{self.title}  ", "bold")
        line.append(f"{done}/{s.total} games  ")
        line.append(f"{len(s.running)} playing  ")
        if s.plan is not None:  # games are added stage by stage: the total is so far
            stage = s.plan.current or "finished"
            line.append(f"stage: {stage}  ", style="bold magenta")
        line.append(self._eta(done), style="cyan")
        bar = ProgressBar(total=max(s.total, 1), completed=done, width=60)
        # A bar ends no line of its own: without the empty Text the next title would follow it.
        return Group(line, bar, Text())

    def _eta(self, done: int) -> str:
        elapsed = trio.current_time() - self._started
        played = done - self.state.finished_before
        remaining = self.state.total - done
        if remaining == 0:
            return f"done in {_duration(elapsed)}"
        if played <= 0 or elapsed <= 0:
            return f"elapsed {_duration(elapsed)}"
        return f"elapsed {_duration(elapsed)}, ETA {_duration(remaining * elapsed / played)}"

    def _running(self) -> Table:
        table = Table(title="Playing", show_edge=False, pad_edge=False)
        for header in ("#", "blue", "orange", "plies", "seconds"):
            table.add_column(header, justify="left" if header in ("blue", "orange") else "right")
        now = trio.current_time()
        games = sorted(self.state.running.values(), key=lambda g: g.game.number)
        for g in games[:MAX_RUNNING_ROWS]:
            table.add_row(
                str(g.game.number), plain(g.game.blue), plain(g.game.orange), str(g.plies),
                f"{now - g.started:.0f}",
            )  # fmt: skip
        if len(games) > MAX_RUNNING_ROWS:
            table.caption = f"and {len(games) - MAX_RUNNING_ROWS} more"
        return table


def _duration(elapsed: float) -> str:
    """`elapsed` seconds in a few characters: tenths under 10 s (a run of 2.9 s is not "0s"),
    whole seconds under a minute, then minutes and seconds, hours and minutes."""
    if elapsed < 10:
        return f"{int(elapsed * 10) / 10:.1f}s"  # cut, not rounded: 9.96 s is not "10.0s"
    seconds = int(elapsed)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"
