"""The view of a match between two bots (`referee match`): the score, the Elo difference with
its 95% interval, normalised Elo, the LOS and the SPRT's log-likelihood ratio between its
bounds, drawn live while the games play (the summary's words are `head_to_head`'s, which
`tournament results` and the dashboard print too).

The live display redraws from the run's in-memory state and the match's tally twice a second,
like the tournament's live display (tournament_live.py).
"""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.text import Text

from referee.stats.head_to_head import Tally, summary_lines
from referee.stats.sprt import Sprt
from referee.tournament.observer import Observer
from referee.tournament.runner import RunState
from referee.views.tournament import finished_table
from referee.views.tournament_live import keep_drawn


class MatchLive(Observer):
    """A match's live display on `console`, in place of the standings, while its games play."""

    def __init__(self, console: Console, tally: Tally) -> None:
        self.console = console
        self.tally = tally

    async def run(self, state: RunState) -> None:
        await MatchDisplay(self.console, state, self.tally).run()


class MatchDisplay:
    def __init__(self, console: Console, state: RunState, tally: Tally) -> None:
        self.console = console
        self.state = state
        self.tally = tally

    async def run(self) -> None:
        await keep_drawn(self.console, self.render)

    def render(self) -> RenderableType:
        s = self.state
        done = s.finished + s.void
        head = Text(f"{self.tally.first} vs {self.tally.second}  ", style="bold")
        head.append(f"{done}/{s.total} games  {len(s.running)} playing")
        parts: list[RenderableType] = [
            head,
            ProgressBar(total=max(s.total, 1), completed=done, width=60),
            Text(),
        ]
        stats = self.tally.stats()
        parts += [Text(line) for line in summary_lines(stats, self.tally, final=False)]
        if self.tally.sprt is not None and stats.llr is not None:
            parts.append(llr_bar(stats.llr, self.tally.sprt))
        if s.recent:
            parts.append(finished_table(s.recent))
        return Group(*parts, Text())


def llr_bar(llr: float, sprt: Sprt, width: int = 41) -> Text:
    """Where the LLR stands between the bounds: H0 on the left, H1 on the right."""
    span = sprt.upper - sprt.lower
    at = round((min(max(llr, sprt.lower), sprt.upper) - sprt.lower) / span * (width - 1))
    bar = Text("H0 [")
    bar.append("-" * at)
    bar.append("*", style="bold cyan")
    bar.append("-" * (width - 1 - at))
    bar.append("] H1")
    return bar
