"""Each step of a version's rating history keeps its interval (the model's, from the games up
to that step), the chart draws it as a band over the steps, and an index made before the
history kept intervals opens, shows its history without them, and gains them when next rated."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from referee.league import queries
from referee.league.config import FitSettings, load_league
from referee.league.index import open_index
from referee.league.rating import rate_league
from referee.web.league_pages import history_chart


def _history(folder: Path, bot: int) -> list[queries.HistoryRow]:
    index = open_index(folder, writer=False)
    try:
        return queries.history(index, bot)
    finally:
        index.close()


def test_each_step_keeps_its_interval_and_the_last_is_the_ratings(rated: Path) -> None:
    index = open_index(rated, writer=True)  # Laplace's intervals, as the history's
    try:
        rate_league(index, FitSettings(), lambda *_: None)
    finally:
        index.close()
    index = open_index(rated, writer=False)
    try:
        ratings = {
            version: (low, high)
            for version, low, high in index.db.execute("SELECT version, low, high FROM ratings")
        }
        history = [h for bot in (1, 2, 3) for h in queries.history(index, bot)]
    finally:
        index.close()
    assert history
    last = max(h.step for h in history)
    for h in history:
        if h.low is not None and h.high is not None:
            assert h.low < h.rating < h.high
    finals = [h for h in history if h.step == last]
    assert finals
    for h in finals:  # the last step rates every game: the ratings' own interval
        low, high = ratings[h.version]
        assert h.low == pytest.approx(low, abs=1e-6) and h.high == pytest.approx(high, abs=1e-6)
    # Fewer games, wider: a version's first step is no narrower than its last.
    for version in {h.version for h in finals}:
        mine = sorted((h for h in history if h.version == version), key=lambda h: h.step)
        first, final = mine[0], mine[-1]
        if None not in (first.low, first.high, final.low, final.high) and first.games < final.games:
            assert first.high - first.low > final.high - final.low  # type: ignore[operator]


def test_the_chart_draws_each_steps_interval(rated: Path) -> None:
    index = open_index(rated, writer=False)
    try:
        versions = queries.bot_versions(index, 1)
        history = queries.history(index, 1)
    finally:
        index.close()
    svg = history_chart(versions, history)
    bands = re.findall(r'<polygon class="band" points="([^"]*)"', svg)
    mine = [h for h in history if h.version == versions[0].version]
    assert len(mine) >= 2 and bands
    # A band's outline: the highs forwards, then the lows back, a point per step.
    assert len(bands[0].split()) == 2 * len(mine)


def test_an_index_made_before_the_intervals_opens_and_upgrades(rated: Path) -> None:
    # The history table as the referee made it before it kept intervals.
    with sqlite3.connect(rated / "league.sqlite") as db:
        db.executescript(
            "ALTER TABLE history DROP COLUMN low; ALTER TABLE history DROP COLUMN high;"
        )
    old = _history(rated, 1)  # a reader: opens it as it is, the history without intervals
    assert old and all(h.low is None and h.high is None for h in old)
    index = open_index(rated, writer=False)
    try:
        svg = history_chart(queries.bot_versions(index, 1), old)
    finally:
        index.close()
    assert "<polyline" in svg and 'class="band"' not in svg
    index = open_index(rated, writer=True)  # a writer upgrades it; rating fills the intervals
    try:
        rate_league(index, FitSettings(), lambda *_: None)
    finally:
        index.close()
    load_league(rated)
    new = _history(rated, 1)
    assert [(h.version, h.step, h.rating) for h in new] == pytest.approx(
        [(h.version, h.step, h.rating) for h in old]
    )
    assert any(h.low is not None for h in new)
