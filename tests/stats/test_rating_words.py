"""The rating model's words: its notes and the terminal's table and lines say what holds,
in the project's own terms (components, not groups), with numbers that read right."""

from __future__ import annotations

import pytest
from rich.console import Console

from referee.stats.rating import Anchor, RatingInput, RatingOptions, rate
from referee.stats.rating_table import rating_table
from referee.views.rating import anchored_words, rating_view


def _text(renderable: object) -> str:
    console = Console(record=True, width=200)
    console.print(renderable)
    return " ".join(console.export_text().split())


def test_notes_name_components_and_count_one_player_in_the_singular() -> None:
    data = RatingInput()
    for first, second in (("a", "b"), ("b", "a"), ("p", "q"), ("q", "p")):
        data.add(first, second, "g", "first", 3)
        data.add(first, second, "g", "second", 2)
    data.add("new", "a", "g", "first", 2)  # new: above a's core, one player outside it
    report = rate(data, RatingOptions(min_games=1))
    text = " ".join(report.notes)
    assert "2 components" in text and "groups" not in text
    assert "1 player has infinite" in text
    method = report.components[0].method
    assert "the other 1 has an infinite maximum likelihood rating and is placed" in method
    joined = rate(data, RatingOptions(min_games=1, join_components=True))
    assert "2 components" in " ".join(joined.notes) and "groups" not in " ".join(joined.notes)


def test_no_empty_ratings_table_when_nobody_is_ranked() -> None:
    data = RatingInput()
    data.add("a", "b", "g", "first", 2)
    data.add("b", "a", "g", "first", 1)  # three games each: provisional under 10
    text = _text(rating_view(rating_table(rate(data))))
    assert "Ratings: not ranked" in text
    assert "Ratings Not ranked" not in text and "Ratings #" not in text


def test_an_anchored_sweep_says_the_bound_on_the_difference() -> None:
    data = RatingInput()
    data.add("ann", "eve", "g", "first", 9)
    data.add("eve", "ann", "g", "second", 9)
    report = rate(data, RatingOptions(min_games=0, anchor=Anchor(1500.0)))
    assert any("each one-sided bound holds with the other players where" in n for n in report.notes)
    table = rating_table(report)
    rows = {row.name: row for row in table.rows}
    ann, eve = rows["ann"], rows["eve"]
    assert ann.low is not None and eve.rating is not None and eve.high is not None
    assert ann.rating is not None
    assert ann.low - eve.rating == pytest.approx(ann.rating - eve.high)
    words = anchored_words(table)
    assert f"ann - eve at least {round(ann.low - eve.rating):+d} Elo" in words
