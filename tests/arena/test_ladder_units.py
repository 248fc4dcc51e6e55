"""The pure parts of the ladder's pages: the rating chart's geometry, what a verdict's detail
shows to whom, and page cursors."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from protocols.base import Side
from referee.arena.disclosure import HIDDEN_STDERR, detail_for
from referee.arena.paging import cursor
from referee.arena.rating_chart import (
    BOTTOM,
    HEIGHT,
    LEFT,
    MAX_POINTS,
    TOP,
    WIDTH,
    chart,
    nice_step,
    thinned,
)
from referee.arena.rating_history import RatingPoint
from referee.arena.store import stamp
from tests.arena.ladder import START


def point(hours: float, rating: float, version: int = 1, **bounds: float) -> RatingPoint:
    at = stamp(START + timedelta(hours=hours))
    return RatingPoint(version, at, rating, bounds.get("low"), bounds.get("high"), 10)


def coordinates(path: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(r"([\d.]+),([\d.]+)", path)]


def test_every_point_of_the_chart_lies_inside_the_plot() -> None:
    points = [point(h, 1500 + 37 * (h % 5), low=1300, high=2600) for h in range(40)]
    drawn = chart(points)
    assert drawn is not None
    for series in drawn.series:
        for x, y in coordinates(series.points) + coordinates(series.band):
            assert LEFT <= x <= WIDTH and TOP <= y <= HEIGHT - BOTTOM
    labels = [float(t.label) for t in drawn.y_ticks]
    assert labels == sorted(labels) and labels[0] <= 1500 and labels[-1] >= 1500 + 37 * 4
    # The band is widened by the intervals, but by no more than 300 beyond the ratings.
    assert labels[-1] - (1500 + 37 * 4) <= 300 + nice_step(labels[-1] - labels[0], 5)


def test_a_one_sided_interval_runs_to_the_edge_of_the_chart() -> None:
    drawn = chart([point(0, 1500, low=1450), point(1, 1520, low=1470)])  # no upper bound
    assert drawn is not None
    band = coordinates(drawn.series[0].band)
    upper = band[: len(band) // 2]
    assert all(y == TOP for _, y in upper)  # open above: to the top of the plot


def test_each_version_is_a_line_of_its_own_and_a_lone_point_a_whisker() -> None:
    drawn = chart([point(0, 1500, 1), point(1, 1510, 1), point(2, 1600, 2, low=1550, high=1650)])
    assert drawn is not None
    assert [s.version for s in drawn.series] == [1, 2]
    assert drawn.series[0].whisker is None and drawn.series[1].band == ""
    whisker = drawn.series[1].whisker
    assert whisker is not None and whisker[1] < drawn.series[1].end[1] < whisker[2]


@pytest.mark.parametrize("minutes", [0, 1, 15, 45])
def test_the_time_axis_ends_at_the_last_rating(minutes: int) -> None:
    """A history of less than an hour is drawn over its own time, not an hour."""
    drawn = chart([point(0, 1500), point(minutes / 60, 1520)])
    assert drawn is not None
    assert drawn.series[0].end[0] == drawn.right  # the last point at the right edge
    labels = [t.label for t in drawn.x_ticks]
    last = START + timedelta(minutes=minutes)
    assert labels[-1] == last.strftime("%H:%M:%S" if minutes < 10 else "%H:%M")
    assert len(set(labels)) == len(labels)  # precise enough to tell the ticks apart


def test_a_long_history_is_thinned_keeping_its_ends() -> None:
    points = [point(h / 10, 1500 + h) for h in range(5000)]
    kept = thinned(points)
    assert len(kept) == MAX_POINTS and kept[0] == points[0] and kept[-1] == points[-1]
    assert chart([]) is None


SAID = "its stderr ends: Traceback: secret"


@pytest.mark.parametrize(
    ("detail", "sides", "shown"),
    [
        (f"blue: closed its output: exited with code 1; {SAID}", {Side.BLUE}, "whole"),
        (f"blue: closed its output: exited with code 1; {SAID}", {Side.ORANGE}, "cut"),
        (f"blue: closed its output: exited with code 1; {SAID}", set(), "cut"),
        (f"neither player could start (blue: x; {SAID}; orange: y)", {Side.BLUE}, "cut"),
        (f"neither player could start (blue: x; {SAID}; orange: y)", set(Side), "whole"),
        ("orange: wrote an illegal move", set(), "whole"),
    ],
)
def test_a_verdict_quotes_stderr_only_to_its_author(
    detail: str, sides: set[Side], shown: str
) -> None:
    got = detail_for(detail, sides)
    if shown == "whole":
        assert got == detail
    else:
        assert "secret" not in got and got.endswith(HIDDEN_STDERR)
        assert got.startswith(detail.split(";")[0])


def test_a_cursor_is_a_plain_positive_id() -> None:
    assert cursor(None) is None and cursor("42") == 42
    for bad in ("0", "-1", "+1", "1_0", " 1", "١٢", "9" * 30, "", "x"):
        with pytest.raises(ValueError):
            cursor(bad)
