"""The view of a match between two bots (`referee match`): the score, the Elo difference with
its 95% interval, normalised Elo, the LOS and the SPRT's log-likelihood ratio between its
bounds, drawn live while the games play and printed once as the summary.

The live display redraws from the run's in-memory state and the match's tally twice a second,
like the tournament's live display (tournament_live.py).
"""

from __future__ import annotations

import math

from rich.console import Console, Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.text import Text

from referee.stats.elo import signed_elo
from referee.stats.estimate import Estimate
from referee.stats.head_to_head import Tally, conclusion
from referee.stats.match import MatchStats
from referee.stats.sprt import Sprt
from referee.tournament.runner import RunState
from referee.views.tournament import finished_table
from referee.views.tournament_live import keep_drawn


def signed(elo: float) -> str:
    return signed_elo(elo, 1)


def percent(probability: float) -> str:
    """A probability in percent, never rounded to a certainty it is not."""
    if 0.9999 < probability < 1.0:
        return ">99.99%"
    if 0.0 < probability < 0.0001:
        return "<0.01%"
    return f"{100 * probability:.2f}%"


def elo_lines(estimate: Estimate) -> list[str]:
    """The Elo difference and normalised Elo with their 95% intervals; after a sweep, the
    bound that holds ("at least +N")."""
    unit = "pair" if estimate.model == "pentanomial" else "game"
    basis = f"from {estimate.samples} {unit}{'s' if estimate.samples != 1 else ''}"
    if math.isinf(estimate.elo_high) and math.isfinite(estimate.elo_low):
        elo = f"at least {signed(estimate.elo_low)} (95% confidence; every {unit} won)"
    elif math.isinf(estimate.elo_low) and math.isfinite(estimate.elo_high):
        elo = f"at most {signed(estimate.elo_high)} (95% confidence; every {unit} lost)"
    else:
        elo = (
            f"{signed(estimate.elo)}, 95% interval "
            f"[{signed(estimate.elo_low)}, {signed(estimate.elo_high)}]"
        )
    lines = [f"Elo difference ({basis}): {elo}"]
    nelo, low, high = estimate.nelo, estimate.nelo_low, estimate.nelo_high
    if nelo is None or low is None or high is None:
        lines.append(f"normalised Elo: undefined (every {unit} scored the same)")
    else:
        lines.append(
            f"normalised Elo: {signed(nelo)}, 95% interval [{signed(low)}, {signed(high)}]"
        )
    return lines


def summary_lines(stats: MatchStats, tally: Tally, *, final: bool = True) -> list[str]:
    """The match's numbers in plain lines, from the first player's point of view; the SPRT's
    conclusion once it decided, or (`final`) that it did not."""
    first, second = tally.first, tally.second
    if stats.games == 0:
        return [f"{first} vs {second}: no game finished yet"]
    percent_score = 100 * (stats.wins + stats.draws / 2) / stats.games
    lines = [
        f"{first} vs {second}: {stats.games} games, {first} +{stats.wins} ={stats.draws} "
        f"-{stats.losses} ({percent_score:.1f}%)",
        f"pairs (0, 1/2, 1, 3/2, 2 points of 2): {' '.join(map(str, stats.pairs))}",
        *elo_lines(stats.estimate),
        f"LOS (likelihood {first} is stronger): {percent(stats.estimate.los)}",
    ]
    sprt = tally.sprt
    if sprt is not None and stats.llr is not None:
        lines.append(
            f"SPRT {sprt.describe()}: LLR {stats.llr:.2f} "
            f"(bounds {sprt.lower:.2f}, {sprt.upper:.2f})"
        )
        if final or stats.decision is not None:
            lines.append(conclusion(stats, sprt, first, second))
    return lines


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
