"""`league rate --anchor NAME=ELO` names a version as the league's tables do."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from referee.league.config import FitSettings, LeagueError
from referee.league.index import LeagueIndex, Source, open_index
from referee.league.queries import leaderboard
from referee.league.rating import rate_league
from referee.stats.rating import Anchor, RatingOptions
from tests.league.test_league_tables import _pair

SPLIT = ["blue", "orange", "draw", "blue", "orange", "orange"] * 2


def _league(folder: Path) -> LeagueIndex:
    """a and b (two versions) split their games; c joins in the second source."""
    index = open_index(folder, writer=True)
    first = _pair("a", "b", SPLIT, 0) + _pair("b", "a", SPLIT, 20)
    newer_b = [
        replace(g, orange=replace(g.orange, content_hash="b2-hash"), finished_at="2026-02-01")
        for g in _pair("c", "b", SPLIT, 40)
    ]
    second = _pair("c", "a", SPLIT, 60) + newer_b
    index.apply_source(Source(folder / "t1", 0, "tournament", "t1", "alak"), first, [])
    index.apply_source(Source(folder / "t2", 1, "tournament", "t2", "alak"), second, [])
    return index


def _ratings(index: LeagueIndex) -> dict[str, float | None]:
    rows = leaderboard(index, game="alak", all_versions=True).rows
    return {row.label: row.rating for row in rows}


@pytest.mark.parametrize("name", ["a", "c", "b", "b v1"])
def test_the_anchor_takes_a_bot_name_or_a_version_as_the_tables_show_it(
    tmp_path: Path, name: str
) -> None:
    index = _league(tmp_path)
    try:
        # History by source: c has no games in the first step, and the anchor still holds.
        options = RatingOptions(min_games=1, anchor=Anchor(1500.0, name))
        rate_league(index, FitSettings(history="source"), lambda *_: None, options)
        ratings = _ratings(index)
    finally:
        index.close()
    held = "b v2" if name == "b" else name  # a bot's name: its latest version
    assert ratings[held] == pytest.approx(1500.0, abs=1e-6)


def test_an_anchor_that_is_not_there_is_refused_naming_the_choices(tmp_path: Path) -> None:
    index = _league(tmp_path)
    try:
        options = RatingOptions(anchor=Anchor(1500.0, "zed"))
        with pytest.raises(LeagueError) as refused:
            rate_league(index, FitSettings(history="none"), lambda *_: None, options)
    finally:
        index.close()
    assert "'zed'" in str(refused.value)
    assert "a, b, b v1, b v2, c" in str(refused.value)
