"""The statistics of a match between two players, from the first player's score in each
finished game: wins, draws, losses, the pentanomial counts of the complete pairs, the estimate
(Elo, interval, normalised Elo, LOS) and, with an SPRT, its LLR and decision.

Game pairs: the games of a match are played in pairs, the same two players with colours swapped
(games 1 and 2, 3 and 4, ... of the schedule). A pair scores 0, 1/2, 1, 3/2 or 2 points for the
first player; the five counts are the pentanomial. Scoring by pairs cancels most of the
first-move advantage, so its variance is smaller than that of single games and a test needs
fewer games. The trinomial model (single games' losses, draws, wins) remains a choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from referee.stats.estimate import GAME_SCORES, PAIR_SCORES, Estimate, Model, estimate
from referee.stats.sprt import Hypothesis, Sprt, llr


def pentanomial(scores: Mapping[int, float]) -> list[int]:
    """The pentanomial counts of the complete pairs among finished games: `scores` maps a game
    number (from 1, in schedule order) to the first player's score in it (1, 1/2 or 0). Games
    2k-1 and 2k form pair k; a pair with a game not finished yet does not count."""
    counts = [0] * 5
    for number, score in scores.items():
        if number % 2 == 1 and number + 1 in scores:
            counts[round(2 * (score + scores[number + 1]))] += 1
    return counts


def trinomial(scores: Mapping[int, float]) -> list[int]:
    """Losses, draws and wins of the first player."""
    wins = sum(1 for s in scores.values() if s == 1.0)
    losses = sum(1 for s in scores.values() if s == 0.0)
    return [losses, len(scores) - wins - losses, wins]


@dataclass(frozen=True)
class MatchStats:
    """Everything the match view shows, from the first player's scores by game number."""

    wins: int
    draws: int
    losses: int
    pairs: list[int]  # pentanomial counts
    estimate: Estimate  # of the model asked for (single games until a pair is complete)
    llr: float | None  # None without an SPRT
    decision: Hypothesis | None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float | None:
        """The first player's score per game over every finished game (None before the first):
        the figure the summary's first line and the JSON's `score` give. The estimate's own
        mean is over the complete pairs only."""
        return (self.wins + self.draws / 2) / self.games if self.games else None


def match_stats(
    scores: Mapping[int, float], sprt: Sprt | None = None, model: Model = "pentanomial"
) -> MatchStats:
    losses, draws, wins = counts = trinomial(scores)
    pairs = pentanomial(scores)
    tested, values = (pairs, PAIR_SCORES) if model == "pentanomial" else (counts, GAME_SCORES)
    value = llr(tested, values, sprt) if sprt is not None else None
    decision = sprt.decide(value) if sprt is not None and value is not None else None
    # Before the first pair is complete, the estimate is that of the single games.
    by_pairs = model == "pentanomial" and sum(pairs) > 0
    shown = estimate(pairs, "pentanomial") if by_pairs else estimate(counts, "trinomial")
    return MatchStats(wins, draws, losses, pairs, shown, value, decision)


def sprt_decision(scores: Mapping[int, float], sprt: Sprt, model: Model) -> Hypothesis | None:
    """The SPRT's decision alone (the runner asks after every game: no interval needed)."""
    if model == "pentanomial":
        return sprt.decide(llr(pentanomial(scores), PAIR_SCORES, sprt))
    return sprt.decide(llr(trinomial(scores), GAME_SCORES, sprt))
