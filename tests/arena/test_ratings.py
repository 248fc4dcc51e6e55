"""The ladder's ratings: the project's rating model over every game that counts, reproducible
from the games alone, ranked among the active versions, with provisional marks and a history
row for each version whose games changed."""

from __future__ import annotations

import shutil
from datetime import timedelta

from referee.arena.folder import Arena, open_arena
from referee.arena.ratings import ANCHOR, cached, fit, fit_key, history, rating_data, recompute
from referee.arena.rows import VersionStatus
from referee.stats.rating import Anchor, RatingInput, RatingOptions, rate
from tests.arena.ladder_rows import START, add_game, add_version, set_status


def ladder(arena: Arena) -> list[int]:
    """Four versions and games among them: some wins both ways, a draw, and games that do not
    count (void, pending, running)."""
    ids = [add_version(arena, name, "x") for name in ("alice", "bob", "carol", "dave")]
    a, b, c, d = ids
    for winner in ("blue", "blue", "orange", None, "blue"):
        add_game(arena, a, b, winner=winner)
    for winner in ("orange", "blue", "blue", "orange"):
        add_game(arena, b, c, winner=winner)
    for winner in ("blue", "orange", None):
        add_game(arena, c, a, winner=winner)
    add_game(arena, d, a, winner="blue")  # d: one game, provisional
    add_game(arena, a, d, state="void", reason="infrastructure")
    add_game(arena, a, d, state="pending")
    add_game(arena, d, b, state="running")
    return ids


def test_the_ratings_are_the_rating_model_s_over_the_games_that_count(arena: Arena) -> None:
    a, b, c, d = ladder(arena)
    ratings = {r.version_id: r for r in recompute(arena.store.writer, START, min_games=3)}
    expected = RatingInput()
    for blue, orange, outcome in (
        [(a, b, "first")] * 3 + [(a, b, "second"), (a, b, "draw")]
        + [(b, c, "second")] * 2 + [(b, c, "first")] * 2
        + [(c, a, "first"), (c, a, "second"), (c, a, "draw"), (d, a, "first")]
    ):  # fmt: skip
        expected.add(str(blue), str(orange), "ladder", outcome)  # type: ignore[arg-type]
    report = rate(expected, RatingOptions(min_games=3, anchor=Anchor(ANCHOR))).by_name()
    assert set(ratings) == {a, b, c, d}
    for version, row in ratings.items():
        model = report[str(version)]
        assert row.rating == model.rating
        assert (row.low, row.high) == (model.interval.low, model.interval.high)
        assert row.games == model.games and row.points == model.points
    assert ratings[a].games == 9 and ratings[d].games == 1
    assert "provisional" in ratings[d].flags.split(",") and ratings[d].rank is None
    ranked = sorted((r for r in ratings.values() if r.rank), key=lambda r: r.rank or 0)
    assert [r.rank for r in ranked] == [1, 2, 3]
    assert [r.rating for r in ranked] == sorted((r.rating for r in ranked), reverse=True)
    assert [r.version_id for r in cached(arena.store.writer)][:3] == [r.version_id for r in ranked]


def test_the_same_games_give_the_same_ratings_in_a_copy_of_the_store(arena: Arena) -> None:
    ladder(arena)
    first = recompute(arena.store.writer, START, min_games=3)
    again = recompute(arena.store.writer, START + timedelta(hours=1), min_games=3)
    assert [(r.version_id, r.rating, r.rank, r.flags) for r in first] == [
        (r.version_id, r.rating, r.rank, r.flags) for r in again
    ]
    arena.close()
    copy = arena.paths.root.with_name("copy")
    shutil.copytree(arena.paths.root, copy)
    opened = open_arena(copy)
    try:
        opened.store.writer.execute("DELETE FROM ratings")
        assert cached(opened.store.writer) == []
        fresh = fit(rating_data(opened.store.reader), 3, START)
        assert fresh == first
    finally:
        opened.close()
    arena.store = open_arena(arena.paths.root).store  # for the fixture's own close


def test_only_active_versions_are_ranked(arena: Arena) -> None:
    a, b, c, _ = ladder(arena)
    set_status(arena, c, VersionStatus.SUPERSEDED)
    ratings = {r.version_id: r for r in recompute(arena.store.writer, START, min_games=3)}
    assert ratings[c].rank is None and ratings[c].games == 7  # still rated: its games count
    assert sorted(r.rank for r in ratings.values() if r.rank) == [1, 2]
    assert {ratings[a].rank, ratings[b].rank} == {1, 2}


def test_history_gains_a_row_for_each_version_whose_games_changed(arena: Arena) -> None:
    a, b, c, d = ladder(arena)
    db = arena.store.writer
    recompute(db, START, min_games=3)
    assert [len(history(db, v)) for v in (a, b, c, d)] == [1, 1, 1, 1]
    recompute(db, START + timedelta(minutes=1), min_games=3)  # nothing new: nothing added
    assert [len(history(db, v)) for v in (a, b, c, d)] == [1, 1, 1, 1]
    add_game(arena, b, c, winner="blue")
    recompute(db, START + timedelta(minutes=2), min_games=3)
    assert [len(history(db, v)) for v in (a, b, c, d)] == [1, 2, 2, 1]
    points = history(db, b)
    assert [p.games for p in points] == [9, 10]
    assert points[0].computed_at < points[1].computed_at


def test_the_fit_key_changes_with_the_games_that_count_and_the_active_versions(
    arena: Arena,
) -> None:
    a, b, c, _ = ladder(arena)
    db = arena.store.reader
    key = fit_key(db)
    assert fit_key(db) == key
    add_game(arena, a, b, state="pending")
    assert fit_key(db) == key  # not counted yet
    add_game(arena, a, b, winner="blue")
    assert fit_key(db) != key
    key = fit_key(db)
    set_status(arena, c, VersionStatus.SUPERSEDED)
    assert fit_key(db) != key


def test_no_games_no_ratings(arena: Arena) -> None:
    add_version(arena, "alice", "x")
    assert recompute(arena.store.writer, START, min_games=3) == []
    assert cached(arena.store.writer) == []
