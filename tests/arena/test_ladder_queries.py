"""The queries behind the ladder's pages, on a real store: the leaderboard's order, intervals and
trends, games a page at a time (keyset, never OFFSET), losses, the queue, the rating history and
the store's migration to it."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

from protocols.base import Side
from referee.arena.folder import Arena
from referee.arena.game_queries import (
    FINISHED,
    LOST,
    OF_ACCOUNT,
    finished_games,
    games_of,
    losses_of,
    page_query,
    queue,
)
from referee.arena.leaderboard import standings
from referee.arena.rating_history import history_of
from referee.arena.store import SCHEMA_VERSION, open_store
from tests.arena.ladder import (
    BLUE_WINS,
    DRAWN,
    ORANGE_WINS,
    START,
    account,
    add_game,
    add_version,
    crash_result,
    rate,
    record_lines,
)
from tests.arena.old_stores import store_of_version


def test_the_leaderboard_ranks_then_lists_the_unranked_then_the_unrated(arena: Arena) -> None:
    db = arena.store.writer
    alice, bob = account(db, "alice"), account(db, "bob")
    add_version(db, alice, status="superseded")  # v1: not on the board
    alices = add_version(db, alice)  # v2, active
    bobs = add_version(db, bob)
    rate(db, alices, 1510.0, low=1400.0, high=None, rank=None, flags="provisional,unbeaten")
    rate(db, bobs, 1490.0, low=1450.0, high=1530.0, rank=1)
    rows = standings(db, START)
    assert [(r.username, r.version, r.rank) for r in rows] == [("bob", 1, 1), ("alice", 2, None)]
    assert rows[0].interval == "1450 – 1530" and not rows[0].provisional
    assert rows[1].interval == "≥ 1400" and rows[1].provisional  # one-sided: a lower bound only
    assert rows[1].flags == {"provisional", "unbeaten"}
    rate(db, add_version(db, account(db, "tess")), 2000.0)  # staff play no part in the ladder
    assert [r.version_id for r in standings(db, START)] == [bobs, alices]


def test_a_version_not_rated_yet_comes_last(arena: Arena) -> None:
    db = arena.store.writer
    alices = add_version(db, account(db, "alice"))
    bobs = add_version(db, account(db, "bob"))
    rate(db, bobs, 1300.0, rank=None, flags="provisional")
    rows = standings(db, START)
    assert [(r.version_id, r.rating, r.trend) for r in rows] == [
        (bobs, 1300.0, 0.0),
        (alices, None, None),
    ]
    assert rows[1].provisional and rows[1].interval == ""


def test_a_disqualified_version_leaves_the_leaderboard(arena: Arena) -> None:
    db = arena.store.writer
    version = add_version(db, account(db, "alice"), status="disqualified")
    rate(db, version, 1600.0)
    assert standings(db, START) == []


def test_the_trend_is_the_change_over_the_last_day(arena: Arena) -> None:
    db = arena.store.writer
    alices = add_version(db, account(db, "alice"))
    bobs = add_version(db, account(db, "bob"))
    now = START + timedelta(days=3)
    rate(db, alices, 1500.0, at=now - timedelta(days=2))
    rate(db, alices, 1550.0, at=now - timedelta(hours=12))
    rate(db, alices, 1580.0, at=now)
    rate(db, bobs, 1400.0, at=now - timedelta(hours=2))  # rated for less than a day
    rate(db, bobs, 1390.0, at=now)
    trends = {row.username: row.trend for row in standings(db, now)}
    assert trends == {"alice": 80.0, "bob": -10.0}


def test_history_keeps_every_fit_of_every_version(arena: Arena) -> None:
    db = arena.store.writer
    alice = account(db, "alice")
    first = add_version(db, alice, status="superseded")
    second = add_version(db, alice)
    rate(db, first, 1500.0, at=START)
    rate(db, first, 1520.0, low=1480.0, high=1560.0, at=START + timedelta(hours=1))
    rate(db, second, 1600.0, at=START + timedelta(hours=2))
    points = history_of(db, alice)
    assert [(p.version, p.rating) for p in points] == [(1, 1500.0), (1, 1520.0), (2, 1600.0)]
    assert (points[1].low, points[1].high) == (1480.0, 1560.0)


def played(arena: Arena, count: int) -> tuple[int, int, list[int]]:
    db = arena.store.writer
    alices = add_version(db, account(db, "alice"))
    bobs = add_version(db, account(db, "bob"))
    ids = [add_game(arena, alices, bobs, state="done") for _ in range(count)]
    return alices, bobs, ids


def test_games_are_paged_by_keyset_without_repeats_or_gaps(arena: Arena) -> None:
    alices, bobs, ids = played(arena, 23)
    db = arena.store.writer
    seen: list[int] = []
    page = finished_games(db, size=5)
    seen += [v.id for v in page.items]
    while page.next_before is not None:
        add_game(arena, bobs, alices, state="done")  # a game finishing while someone pages
        page = finished_games(db, before=page.next_before, size=5)
        seen += [v.id for v in page.items]
    assert seen == sorted(ids, reverse=True)  # each once, newest first, none of the new ones


def test_an_accounts_games_are_its_own_only(arena: Arena) -> None:
    db = arena.store.writer
    alice, bob, tess = account(db, "alice"), account(db, "bob"), account(db, "tess")
    alices, bobs, tesss = add_version(db, alice), add_version(db, bob), add_version(db, tess)
    theirs = add_game(arena, bobs, tesss)
    mine = [add_game(arena, alices, bobs), add_game(arena, tesss, alices, state="pending")]
    assert [v.id for v in games_of(db, alice).items] == sorted(mine, reverse=True)
    assert theirs in [v.id for v in games_of(db, bob).items]
    assert [v.id for v in finished_games(db, account=alice).items] == [mine[0]]


def test_losses_are_games_the_other_side_won_and_double_forfeits(arena: Arena) -> None:
    db = arena.store.writer
    alice = account(db, "alice")
    alices, bobs = add_version(db, alice), add_version(db, account(db, "bob"))
    lost_as_blue = add_game(arena, alices, bobs, lines=record_lines(ORANGE_WINS))
    add_game(arena, alices, bobs, lines=record_lines(BLUE_WINS))  # won
    lost_as_orange = add_game(arena, bobs, alices, lines=record_lines(BLUE_WINS))
    add_game(arena, bobs, alices, lines=record_lines(DRAWN))
    crashed = add_game(
        arena, alices, bobs, lines=record_lines(["a1"], result=crash_result(Side.ORANGE, 1, "x"))
    )
    forfeit = add_game(arena, bobs, alices, state="done")  # neither started: both lose
    db.execute("UPDATE games SET reason = 'crash' WHERE id = ?", (forfeit,))
    add_game(arena, alices, bobs, state="void")
    found = [v.id for v in losses_of(db, alice).items]
    assert found == [forfeit, lost_as_orange, lost_as_blue]
    assert crashed not in found  # orange crashed: alice (blue) won
    assert [v.outcome_for(alice) for v in losses_of(db, alice).items] == ["lost"] * 3


def test_the_queue_lists_running_then_the_oldest_pending(arena: Arena) -> None:
    db = arena.store.writer
    alice = account(db, "alice")
    alices, bobs = add_version(db, alice), add_version(db, account(db, "bob"))
    tesss = add_version(db, account(db, "tess"))
    pending = [add_game(arena, alices, bobs, state="pending") for _ in range(3)]
    running = add_game(arena, bobs, tesss, state="running")
    add_game(arena, alices, bobs, state="done")
    found = queue(db)
    assert [v.id for v in found.running] == [running]
    assert [v.id for v in found.pending] == pending and found.pending_count == 3
    own = queue(db, alice)
    assert own.running == [] and own.pending_count == 3


def test_a_store_of_schema_1_gains_the_rating_history(tmp_path: Path) -> None:
    path = tmp_path / "arena.sqlite"
    store_of_version(path, 1)
    store = open_store(path)
    try:
        tables = {r[0] for r in store.writer.execute("SELECT name FROM sqlite_master")}
        assert "rating_history" in tables
        assert store.writer.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert history_of(store.writer, 1) == []
    finally:
        store.close()


def plan(db: sqlite3.Connection, statement: str) -> str:
    rows = db.execute(f"EXPLAIN QUERY PLAN {statement}", {"account": 1, "before": 9, "limit": 9})
    return " | ".join(str(row[-1]) for row in rows)


def test_a_page_of_games_reads_only_its_rows(arena: Arena) -> None:
    """The newest played games come from the primary key, walked from the top: not every
    played game read through the state's index and sorted (which cost 170 ms a page at 20,000
    games); one account's games come through its versions' indexes."""
    db = arena.store.writer
    newest = plan(db, page_query([FINISHED]))
    assert "games_by_state" not in newest and "TEMP B-TREE" not in newest, newest
    for where in ([LOST], [FINISHED, OF_ACCOUNT], [OF_ACCOUNT]):
        found = plan(db, page_query(where))
        assert "games_by_blue" in found and "games_by_orange" in found, found
        assert "games_by_state" not in found, found
