"""The rating model's report as a pydantic table: what `tournament results --format json`
writes, what the terminal's rating tables show (`referee.views.rating`), and what the league
stores per version. One shape for every caller, so that the same games read the same wherever
they are rated.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from referee.stats.rating_report import PlayerRating, RatingReport


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RatingLine(_Model):
    name: str
    rank: int | None  # dense, within its component; None: provisional, alone or unbounded
    rating: float | None  # Elo; None without games
    low: float | None  # None: no lower bound (winless, unbounded) or no games
    high: float | None  # None: no upper bound (unbeaten, unbounded) or no games
    side: str  # "two-sided", "lower" (unbeaten), "upper" (winless), "none"
    method: str  # "laplace", "bootstrap", "likelihood" (one-sided), "none"
    games: int
    points: float
    flags: list[str]  # unbeaten, winless, unbounded, provisional, alone
    component: int
    los_next: float | None  # P(stronger than the next row shown), same component only


class KindLine(_Model):
    name: str
    advantage: float  # Elo, the first mover's
    draw_margin: float
    games: int
    advantage_from_prior: bool
    margin_from_prior: bool


class ComponentLine(_Model):
    index: int
    players: list[str]
    games: int
    core: list[str]
    method: str


class RatingTable(_Model):
    model: str  # the model in words
    level: float
    intervals: str  # "laplace" or "bootstrap"
    anchor: str  # where the ratings sit, in words
    joined: bool
    converged: bool
    rows: list[RatingLine]  # by component, ranked rows first, best first
    kinds: list[KindLine]
    components: list[ComponentLine]
    notes: list[str]
    los_names: list[str] = []
    los_matrix: list[list[float | None]] = []  # [i][j] = P(r_i > r_j), `--los-matrix` only

    def by_name(self) -> dict[str, RatingLine]:
        return {row.name: row for row in self.rows}


MODEL = "Bradley-Terry with a draw margin and a first-move advantage (BayesElo), maximum likelihood"


def rating_table(report: RatingReport) -> RatingTable:
    anchor = report.anchor
    if anchor is None:
        where = "each component's core averages 0"
    elif anchor.player is None:
        where = f"each component's core averages {anchor.elo:g}"
    else:
        where = f"{anchor.player} at {anchor.elo:g}"
    matrix = report.los_matrix
    return RatingTable(
        model=MODEL,
        level=report.level,
        intervals=report.intervals,
        anchor=where,
        joined=report.joined,
        converged=report.converged,
        rows=[_line(row) for row in (*report.rows, *report.hidden)],
        kinds=[
            KindLine(
                name=k.name,
                advantage=k.advantage,
                draw_margin=k.draw_margin,
                games=k.games,
                advantage_from_prior=k.advantage_from_prior,
                margin_from_prior=k.margin_from_prior,
            )
            for k in report.kinds
        ],
        components=[
            ComponentLine(
                index=c.index,
                players=list(c.players),
                games=c.games,
                core=list(c.core),
                method=c.method,
            )
            for c in report.components
        ],
        notes=list(report.notes),
        los_names=list(matrix.names) if matrix else [],
        los_matrix=[list(v) for v in matrix.values] if matrix else [],
    )


def _line(row: PlayerRating) -> RatingLine:
    return RatingLine(
        name=row.name,
        rank=row.rank,
        rating=row.rating,
        low=row.interval.low,
        high=row.interval.high,
        side=row.interval.side,
        method=row.interval.method,
        games=row.games,
        points=row.points,
        flags=sorted(row.flags),
        component=row.component,
        los_next=row.los_next,
    )
