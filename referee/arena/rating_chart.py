"""A rating history as a chart: pure geometry (coordinates, ticks and labels) that the template
`_rating_chart.html` draws as an SVG, with no script.

Time runs along x, the rating up y; each version of the student is a line of its own (its
label at its start), over a band of its intervals. A one-sided interval's band runs to the
edge of the chart on its open side. The y range is the ratings' own, widened by the intervals
by at most `INTERVAL_ROOM` (an interval of a version with few games can span thousands of
points, which would flatten every line), then rounded out to tick values. A long history is
thinned to `MAX_POINTS` points, its first and last kept.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from referee.arena.rating_history import RatingPoint
from referee.arena.store import parse_stamp

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 52, 14, 12, 30  # the margins around the plot
MAX_POINTS = 240
INTERVAL_ROOM = 300.0
Y_TICKS = 5
MIN_SPAN = 60.0  # seconds: the shortest time axis


@dataclass(frozen=True)
class Tick:
    at: float  # the coordinate along its axis
    label: str


@dataclass(frozen=True)
class Series:
    version: int
    points: str  # "x,y x,y ...": a polyline
    band: str  # the interval band, a polygon ("" when no point has a bound, or one point)
    whisker: tuple[float, float, float] | None  # a lone point's interval: x, top, bottom
    end: tuple[float, float]  # the last point
    label: tuple[float, float]  # where the version's name goes, by its first point


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    top: int
    right: float  # the plot's right and bottom edges
    bottom: float
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    series: list[Series]
    summary: str  # what the chart shows, in words (its title)


def thinned(points: Sequence[RatingPoint], most: int = MAX_POINTS) -> list[RatingPoint]:
    """At most `most` of `points`, evenly spread, the first and the last kept."""
    if len(points) <= most:
        return list(points)
    step = (len(points) - 1) / (most - 1)
    return [points[round(i * step)] for i in range(most)]


def nice_step(span: float, count: int) -> float:
    """A step of 1, 2 or 5 times a power of ten giving about `count` ticks over `span`."""
    raw = max(span, 1e-9) / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    return next(float(m * power) for m in (1, 2, 5, 10) if m * power >= raw)


def _rating_range(points: Sequence[RatingPoint]) -> tuple[float, float, float]:
    ratings = [p.rating for p in points]
    least, most = min(ratings), max(ratings)
    lows = [p.low for p in points if p.low is not None]
    highs = [p.high for p in points if p.high is not None]
    least = max(min([least, *lows]), least - INTERVAL_ROOM)
    most = min(max([most, *highs]), most + INTERVAL_ROOM)
    if most - least < 20:  # one rating, or nearly: give the line some room
        least, most = least - 10, most + 10
    step = nice_step(most - least, Y_TICKS)
    return math.floor(least / step) * step, math.ceil(most / step) * step, step


def _time_label(moment: datetime, span_seconds: float) -> str:
    """A tick's time (UTC), as precise as the span needs."""
    if span_seconds < 600:
        return moment.strftime("%H:%M:%S")
    if span_seconds < 86400:
        return moment.strftime("%H:%M")
    return moment.strftime("%b %d %H:%M" if span_seconds < 5 * 86400 else "%b %d")


def chart(points: Sequence[RatingPoint]) -> Chart | None:
    """The chart of a history (None when there is nothing to draw)."""
    if not points:
        return None
    shown = thinned(points)
    times = [parse_stamp(p.at).timestamp() for p in shown]
    # The axis ends at the last rating (never past it: an empty stretch would read as time
    # with no games); a history shorter than `MIN_SPAN` is drawn over that span before it.
    last = times[-1]
    first = min(times[0], last - MIN_SPAN)
    low, high, step = _rating_range(shown)
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM

    def x(t: float) -> float:
        return round(LEFT + (t - first) / (last - first) * (right - LEFT), 1)

    def y(rating: float) -> float:
        clamped = min(max(rating, low), high)
        return round(bottom - (clamped - low) / (high - low) * (bottom - TOP), 1)

    values = [low + i * step for i in range(round((high - low) / step) + 1)]
    y_ticks = [Tick(y(value), f"{value:.0f}") for value in values]
    moments = [first + i * (last - first) / 4 for i in range(5)]
    x_ticks = [
        Tick(x(t), _time_label(datetime.fromtimestamp(t, UTC), last - first)) for t in moments
    ]
    series = []
    for version in dict.fromkeys(p.version for p in shown):
        mine = [(t, p) for t, p in zip(times, shown, strict=True) if p.version == version]
        line = [(x(t), y(p.rating)) for t, p in mine]
        upper = [(x(t), y(p.high if p.high is not None else high)) for t, p in mine]
        lower = [(x(t), y(p.low if p.low is not None else low)) for t, p in reversed(mine)]
        bounded = any(p.low is not None or p.high is not None for _, p in mine)
        band = _path(upper + lower) if bounded and len(mine) > 1 else ""
        whisker = (upper[0][0], upper[0][1], lower[0][1]) if bounded and len(mine) == 1 else None
        label = (round(line[0][0] + 4, 1), round(line[0][1] - 6, 1))
        series.append(Series(version, _path(line), band, whisker, line[-1], label))
    latest = shown[-1]
    summary = (
        f"rating history: {len(points)} ratings, latest {latest.rating:.0f} (v{latest.version})"
    )
    return Chart(WIDTH, HEIGHT, LEFT, TOP, right, bottom, x_ticks, y_ticks, series, summary)


def _path(points: list[tuple[float, float]]) -> str:
    return " ".join(f"{px},{py}" for px, py in points)
