"""The statistics of a match of many games between two players (`referee match`).

The schedule of two players alternates colours game by game, so games 2k-1 and 2k are the same
pair with colours swapped: the pairs of the statistics (`match.py`). This module keeps the first
player's scores by game number, says when the SPRT decided, and puts the numbers in words and
in a JSON summary. The match session (`referee.app.match_session`) feeds it the stored games and
the run's events.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from referee.stats.elo import signed_elo
from referee.stats.estimate import Estimate, Model
from referee.stats.match import MatchStats, match_stats, sprt_decision
from referee.stats.sprt import Sprt


def first_player_score(winner: str | None, first: str, second: str) -> float:
    """1, 1/2 or 0 for the first player. A game with no winner (a draw, or both bots failing
    to start) is a half point each: the match compares the two bots, and a double forfeit says
    nothing about which is the stronger."""
    if winner == first:
        return 1.0
    if winner == second:
        return 0.0
    return 0.5


@dataclass
class Tally:
    """The first player's score in every finished game, by game number."""

    first: str
    second: str
    sprt: Sprt | None = None
    scores: dict[int, float] = field(default_factory=dict)
    model: Model = "pentanomial"
    _cache: tuple[tuple[tuple[int, float], ...], MatchStats] | None = field(
        default=None, repr=False, compare=False
    )

    def add(self, number: int, winner: str | None) -> None:
        """Game `number` finished, won by `winner` (None: no winner)."""
        self.scores[number] = first_player_score(winner, self.first, self.second)

    def stats(self) -> MatchStats:
        """The statistics of the games so far (computed once for each set of results: the
        live view asks twice a second)."""
        key = tuple(self.scores.items())
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, match_stats(self.scores, self.sprt, self.model))
        return self._cache[1]

    def decided(self, state: object = None) -> bool:
        """True once the SPRT accepted H0 or H1 (the runner's `stop_when`: `state` is the run's,
        which the decision does not need)."""
        if self.sprt is None:
            return False
        return sprt_decision(self.scores, self.sprt, self.model) is not None

    def could_decide(self, number: int) -> bool:
        """Whether game `number`, not counted yet, could make the SPRT decide, whatever its
        result (the runner's `could_stop`: only then does the next game wait for it). The first
        game of a pair never can, for a pair counts once both its games are in."""
        if self.sprt is None:
            return False
        return any(
            sprt_decision({**self.scores, number: score}, self.sprt, self.model) is not None
            for score in (0.0, 0.5, 1.0)
        )


def conclusion(stats: MatchStats, sprt: Sprt, first: str, second: str) -> str:
    """The SPRT's decision in plain words."""
    elo = "normalised Elo" if sprt.model == "normalized" else "Elo"
    if stats.decision == "H1":
        return (
            f"H1 accepted: {first} is stronger than {second} by at least {sprt.elo1:g} {elo}, "
            f"with {100 * (1 - sprt.alpha):g}% confidence"
        )
    if stats.decision == "H0":
        return (
            f"H0 accepted: {first} is not stronger than {second} by {sprt.elo1:g} {elo} or "
            f"more, with {100 * (1 - sprt.beta):g}% confidence"
        )
    return "no decision yet: play more games (raise --games and run the same command again)"


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
    interval's one end (the estimate itself is infinite)."""
    unit = "pair" if estimate.model == "pentanomial" else "game"
    basis = f"from {estimate.samples} {unit}{'s' if estimate.samples != 1 else ''}"
    if math.isinf(estimate.elo_high) and math.isfinite(estimate.elo_low):
        elo = f"every {unit} won, 95% interval [{signed(estimate.elo_low)}, no upper end]"
    elif math.isinf(estimate.elo_low) and math.isfinite(estimate.elo_high):
        elo = f"every {unit} lost, 95% interval [no lower end, {signed(estimate.elo_high)}]"
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
    if stats.score is None:
        return [f"{first} vs {second}: no game finished yet"]
    lines = [
        f"{first} vs {second}: {stats.games} games, {first} +{stats.wins} ={stats.draws} "
        f"-{stats.losses} ({100 * stats.score:.1f}%)",
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


def _finite(value: float | None) -> float | None:
    """A number for JSON, which has no infinity: None for an unbounded end."""
    return value if value is not None and math.isfinite(value) else None


def summary_fields(tally: Tally, directory: str) -> dict[str, Any]:
    """The match's numbers for `--json`: one object a script can read. An interval's missing
    end is null (after a sweep, `elo` and `elo_high` are null and `elo_low` is the bound)."""
    stats = tally.stats()
    estimate = stats.estimate
    sprt = tally.sprt
    fields: dict[str, Any] = {
        "players": [tally.first, tally.second],
        "games": stats.games,
        "wins": stats.wins,
        "draws": stats.draws,
        "losses": stats.losses,
        "pentanomial": stats.pairs,
        "model": estimate.model,
        "score": stats.score,
        "elo": _finite(estimate.elo),
        "elo_low": _finite(estimate.elo_low),
        "elo_high": _finite(estimate.elo_high),
        "nelo": _finite(estimate.nelo),
        "nelo_low": _finite(estimate.nelo_low),
        "nelo_high": _finite(estimate.nelo_high),
        "los": estimate.los,
        "sprt": None,
        "llr": stats.llr,
        "decision": stats.decision,
        "directory": directory,
    }
    if sprt is not None:
        fields["sprt"] = {
            "elo0": sprt.elo0,
            "elo1": sprt.elo1,
            "alpha": sprt.alpha,
            "beta": sprt.beta,
            "model": sprt.model,
            "lower": sprt.lower,
            "upper": sprt.upper,
        }
    return fields
