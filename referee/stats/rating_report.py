"""What the rating model answers, as typed values: the options it is asked with, and the report
(per player, per kind, per component, the LOS matrix). Plain frozen dataclasses: the callers
(tournaments, matches, the league, the arena) render or store them as they need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# "unbeaten": no loss, "winless": no win; "above" ("below"): above (below) its component's core
# with an infinite maximum likelihood rating, though it lost (won) a game, to a player further out.
Flag = Literal["unbeaten", "above", "winless", "below", "unbounded", "provisional", "alone"]
# "two-sided": low and high; "lower": a lower bound only (the likelihood is largest at +inf);
# "upper": an upper bound only; "none": no bound (any rating fits, or no games).
Side = Literal["two-sided", "lower", "upper", "none"]
IntervalMethod = Literal["laplace", "bootstrap", "likelihood", "none"]

DEFAULT_LEVEL = 0.95
DEFAULT_MIN_GAMES = 10
DEFAULT_PRIOR_SD = 1000.0  # Elo: weak; used only where a finite maximum needs it


@dataclass(frozen=True)
class Anchor:
    """Where the ratings sit: `player` at `elo`, or (no player) each component's mean at `elo`."""

    elo: float
    player: str | None = None


@dataclass(frozen=True)
class RatingOptions:
    level: float = DEFAULT_LEVEL  # of the intervals
    min_games: int = DEFAULT_MIN_GAMES  # fewer: provisional, unranked
    join_components: bool = False  # rate components that never met on one scale, by the prior
    prior_sd: float = DEFAULT_PRIOR_SD
    anchor: Anchor | None = None
    show: Literal["all", "ranked"] = "all"  # "ranked": unranked rows go to `hidden`
    los_matrix: bool = False  # the full LOS matrix of the rows shown
    # ...of these players only (those of them shown, in the rows' order): a league shows a
    # page of its thousands of versions, and the matrix grows with the square of its players.
    los_players: frozenset[str] | None = None
    bootstrap: int = 0  # resamples; > 0: the intervals come from them
    seed: int = 1  # of the bootstrap


@dataclass(frozen=True)
class Interval:
    low: float | None  # None: no lower bound
    high: float | None  # None: no upper bound
    side: Side
    method: IntervalMethod


NO_INTERVAL = Interval(None, None, "none", "none")


@dataclass(frozen=True)
class PlayerRating:
    name: str
    rating: float | None  # Elo; None for a player without games
    interval: Interval
    games: int
    points: float  # a win 1, a draw 1/2
    flags: frozenset[Flag]
    component: int  # index into `RatingReport.components`
    rank: int | None  # dense, from 1, among the ranked rows of its component (joined: of all)
    los_next: float | None  # P(this rating > the next shown row's), same component only

    @property
    def score(self) -> float | None:
        return self.points / self.games if self.games else None


@dataclass(frozen=True)
class KindRating:
    name: str
    advantage: float  # Elo, the first mover's
    draw_margin: float  # Elo; 0 for a kind without draws
    games: int  # games of the kind that the fit used
    advantage_from_prior: bool  # the games do not pin it: the prior keeps it finite
    margin_from_prior: bool


@dataclass(frozen=True)
class ComponentInfo:
    index: int
    players: tuple[str, ...]
    games: int
    core: tuple[str, ...]  # the players whose maximum likelihood ratings are finite together
    method: str  # how its ratings were found, in words


@dataclass(frozen=True)
class LosMatrix:
    names: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]  # values[i][j] = P(r_i > r_j); None: unknown


@dataclass(frozen=True)
class RatingReport:
    rows: tuple[PlayerRating, ...]  # shown: by component, ranked rows first, best first
    hidden: tuple[PlayerRating, ...]  # not shown (`show="ranked"`)
    kinds: tuple[KindRating, ...]
    components: tuple[ComponentInfo, ...]
    joined: bool  # components put on one scale by the prior
    level: float
    anchor: Anchor | None
    intervals: Literal["laplace", "bootstrap"]
    los_matrix: LosMatrix | None
    converged: bool
    notes: tuple[str, ...]  # what a reader of the table must know, in sentences

    def by_name(self) -> dict[str, PlayerRating]:
        return {row.name: row for row in (*self.rows, *self.hidden)}
