"""The ladder's queries on a real store: the scheduler's snapshot, meetings added as games (both
colours, seeds from the ids, one opening), games taken and committed, replays within their
limits, and the games of a stopped server voided and queued again."""

from __future__ import annotations

import sqlite3
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols.base import Reason, Side
from referee.arena.folder import Arena, new_arena, open_arena
from referee.arena.ladder_store import (
    MAX_REPLAYS,
    add_meetings,
    finish,
    game_seed,
    interrupt,
    record_name,
    recover,
    schedule_snapshot,
    take_next,
)
from referee.arena.rows import Game, GameKind, GameState, VersionStatus
from referee.arena.scheduler import Meeting
from referee.arena.store import SCHEMA_VERSION, open_store, transaction
from referee.openings import opening_for_pair
from referee.records import Result, utc_now
from tests.arena.ladder_rows import START, add_game, add_version, builtin_bot, set_status
from tests.arena.old_stores import store_of_version


def games(arena: Arena) -> list[Game]:
    rows = arena.store.writer.execute(f"SELECT {Game.COLUMNS} FROM games ORDER BY id")
    return [Game.of(r) for r in rows]


def result(reason: Reason, winner: Side | None = None) -> Result:
    return Result(
        winner=winner,
        reason=reason,
        detail="test",
        plies=3,
        void=reason.voids_game,
        finished_at=utc_now(),
    )


def with_schedule(arena: Arena, **settings: object) -> None:
    schedule = arena.config.schedule.model_copy(update=settings)
    arena.config = arena.config.model_copy(update={"schedule": schedule})


def test_the_snapshot_holds_the_active_versions_and_what_they_played(arena: Arena) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    old = add_version(arena, "carol", "x", status=VersionStatus.SUPERSEDED)
    add_version(arena, "carol", "x", status=VersionStatus.FAILED)
    add_version(arena, "dave", "x", status=VersionStatus.DISQUALIFIED)
    add_version(arena, "erin", "x", late=True, status=VersionStatus.ACTIVE)
    c = add_version(arena, "frank", "x", activated=START + timedelta(hours=2))
    add_game(arena, a, b, winner="blue", created=START - timedelta(hours=3))
    add_game(arena, b, a, winner="orange", created=START - timedelta(hours=3))
    add_game(arena, a, old, winner="blue", created=START + timedelta(hours=2, minutes=30))
    add_game(arena, b, c, state="void", reason="infrastructure")
    add_game(arena, c, a, state="pending", created=START + timedelta(hours=2, minutes=50))
    add_game(arena, a, c, state="running", created=START + timedelta(hours=2, minutes=50))
    now = START + timedelta(hours=3)
    found = arena.store.reader  # it sees what the writer committed
    taken = schedule_snapshot(found, now, arena.config, concurrency=4)
    by_id = {e.version: e for e in taken.entrants}
    assert set(by_id) == {a, b, c}  # superseded, failed, disqualified and late never play
    assert by_id[a].games == 5 and by_id[b].games == 2 and by_id[c].games == 2
    assert by_id[a].recent == 3 and by_id[b].recent == 0 and by_id[c].recent == 2
    assert by_id[c].hours == pytest.approx(1.0) and by_id[a].hours == pytest.approx(3.0)
    assert taken.met == {(a, b): 1, (a, c): 1}  # pairs of active versions alone
    assert taken.queued == 2 and taken.concurrency == 4
    assert taken.time_left is None
    assert taken.game_seconds == 0.0  # the rows above start and end at once
    with_schedule(arena)
    deadline = arena.config.deadline.model_copy(update={"at": now + timedelta(minutes=5)})
    arena.config = arena.config.model_copy(update={"deadline": deadline})
    assert schedule_snapshot(found, now, arena.config, 4).time_left == 300.0


def test_a_meeting_is_two_games_with_swapped_colours_and_seeds_of_their_ids(
    arena: Arena,
) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    c = add_version(arena, "carol", "x")
    ids = add_meetings(
        arena.store.writer,
        START,
        [Meeting(a, b, GameKind.PLACEMENT), Meeting(c, a, GameKind.LADDER)],
        arena.config,
    )
    assert ids == [1, 2, 3, 4]
    rows = games(arena)
    assert [(g.blue, g.orange, g.kind) for g in rows] == [
        (a, b, GameKind.PLACEMENT), (b, a, GameKind.PLACEMENT),
        (c, a, GameKind.LADDER), (a, c, GameKind.LADDER),
    ]  # fmt: skip
    assert [g.seed for g in rows] == [game_seed(i) for i in ids]
    assert len({g.seed for g in rows}) == 4
    assert all(g.state is GameState.PENDING and g.attempt == 1 for g in rows)
    assert all(g.opening is None for g in rows)  # neither declared `position`


def test_a_meeting_starts_from_one_opening_when_both_declared_position(arena: Arena) -> None:
    a = add_version(arena, "alice", builtin_bot(seed=1))  # built-in bots understand it
    b = add_version(arena, "bob", "python3 bot.py", capabilities=["position"])
    c = add_version(arena, "carol", "python3 bot.py")
    db = arena.store.writer
    add_meetings(db, START, [Meeting(a, b, GameKind.LADDER), Meeting(a, c, GameKind.LADDER)],
                 arena.config)  # fmt: skip
    first, second, third, fourth = games(arena)
    assert first.opening is not None and len(first.opening) == 4  # opening_plies
    assert second.opening == first.opening
    assert third.opening is None and fourth.opening is None  # carol did not declare it
    # The opening follows from the seed of the meeting's first game: from the store alone.
    expected = opening_for_pair("tic-tac-toe", {}, game_seed(first.id), 0, plies=4)
    assert list(first.opening) == expected
    with_schedule(arena, openings="none")
    add_meetings(db, START, [Meeting(a, b, GameKind.LADDER)], arena.config)
    assert games(arena)[4].opening is None


def test_take_next_plays_replays_first_and_withdraws_what_may_no_longer_play(
    arena: Arena,
) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    c = add_version(arena, "carol", "x")
    first = add_game(arena, a, b, state="pending")
    gone = add_game(arena, a, c, state="pending")
    void = add_game(arena, b, a, state="void", reason="infrastructure")
    replay = add_game(arena, b, a, state="pending", replaces=void, attempt=2)
    set_status(arena, c, VersionStatus.SUPERSEDED)
    db = arena.store.writer
    taken = take_next(db, START)
    assert taken is not None and taken.id == replay and taken.state is GameState.RUNNING
    assert taken.record == record_name(replay) == f"games/{replay}.jsonl"
    assert [g.state for g in games(arena) if g.id == gone] == [GameState.VOID]
    assert "withdrawn" in (games(arena)[gone - 1].detail or "")
    second = take_next(db, START)
    assert second is not None and second.id == first
    assert take_next(db, START) is None


def test_a_rerun_of_a_superseded_version_plays_but_not_of_a_disqualified_one(
    arena: Arena,
) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    c = add_version(arena, "carol", "x")
    kept = add_game(arena, a, b, state="pending", kind=GameKind.RERUN, replaces=None)
    dropped = add_game(arena, a, c, state="pending", kind=GameKind.RERUN)
    set_status(arena, a, VersionStatus.SUPERSEDED)
    set_status(arena, c, VersionStatus.DISQUALIFIED)
    taken = take_next(arena.store.writer, START)
    assert taken is not None and taken.id == kept
    assert games(arena)[dropped - 1].state is GameState.VOID


def running(arena: Arena, blue: int, orange: int) -> Game:
    add_game(arena, blue, orange, state="pending", seed=77, opening=["1", "2"])
    game = take_next(arena.store.writer, START)
    assert game is not None
    path = arena.paths.root / record_name(game.id)
    path.write_text('{"type": "result", "chain": "abc"}\n')
    return game


def test_a_finished_game_counts_with_its_record_s_final_hash(arena: Arena) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    game = running(arena, a, b)
    won = result(Reason.CRASH, Side.BLUE)
    replay = finish(arena.store.writer, arena.paths.root, START, game, won)
    assert replay is None
    (done,) = games(arena)
    assert done.state is GameState.DONE and done.winner == "blue" and done.reason == "crash"
    chain = arena.store.writer.execute("SELECT chain FROM games WHERE id = ?", (game.id,))
    assert chain.fetchone()[0] == "abc"
    # Committed once: a second commit of the same game changes nothing.
    again = finish(arena.store.writer, arena.paths.root, START, game, result(Reason.TIMEOUT))
    assert again is None and games(arena)[0].reason == "crash"


def test_a_void_game_is_played_again_as_it_was_within_the_limits(arena: Arena) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    db, root = arena.store.writer, arena.paths.root
    game = running(arena, a, b)
    attempts = [game]
    for _ in range(MAX_REPLAYS):
        replay = finish(db, root, START, attempts[-1], result(Reason.INFRASTRUCTURE))
        assert replay is not None
        assert (replay.blue, replay.orange, replay.seed, replay.opening) == (a, b, 77, ("1", "2"))
        assert replay.replaces == attempts[-1].id and replay.attempt == attempts[-1].attempt + 1
        taken = take_next(db, START)
        assert taken is not None and taken.id == replay.id
        attempts.append(taken)
    # The fourth void attempt is the last: the game stays void (the scheduler plans anew).
    assert finish(db, root, START, attempts[-1], result(Reason.REFEREE_OVERLOAD)) is None
    assert [g.state for g in games(arena)] == [GameState.VOID] * (MAX_REPLAYS + 1)


def test_a_referee_fault_is_played_again_once(arena: Arena) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    db, root = arena.store.writer, arena.paths.root
    game = running(arena, a, b)
    replay = finish(db, root, START, game, result(Reason.REFEREE_ERROR))
    assert replay is not None
    again = take_next(db, START)
    assert again is not None
    assert finish(db, root, START, again, result(Reason.REFEREE_ERROR)) is None


def test_a_referee_fault_of_an_older_store_counts_as_a_referee_error(arena: Arena) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    db, root = arena.store.writer, arena.paths.root
    game = running(arena, a, b)
    assert finish(db, root, START, game, result(Reason.REFEREE_ERROR)) is not None
    # The void attempt as an older referee stored it, before the reason was renamed.
    db.execute("UPDATE games SET reason = 'referee-fault' WHERE id = ?", (game.id,))
    again = take_next(db, START)
    assert again is not None
    assert finish(db, root, START, again, result(Reason.REFEREE_ERROR)) is None


def test_a_stopped_server_s_games_are_voided_and_queued_again(arena: Arena) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    db = arena.store.writer
    done = add_game(arena, a, b, winner="orange")
    game = running(arena, a, b)
    other = running(arena, b, a)
    assert interrupt(db, START, [other.id]) == [other.id]
    assert recover(db, START) == [game.id]
    assert recover(db, START) == []
    rows = {g.id: g for g in games(arena)}
    assert rows[done].state is GameState.DONE
    for voided in (game, other):
        assert rows[voided.id].state is GameState.VOID
        assert rows[voided.id].reason == Reason.INTERRUPTED.value
        (fresh,) = [g for g in rows.values() if g.replaces == voided.id]
        assert fresh.state is GameState.PENDING and fresh.seed == voided.seed
        assert (fresh.blue, fresh.orange, fresh.attempt) == (voided.blue, voided.orange, 2)


def test_a_store_of_the_first_schema_gains_the_ladder_s_columns(tmp_path: Path) -> None:
    path = tmp_path / "arena.sqlite"
    store_of_version(path, 1)
    opened = open_store(path)
    try:
        db = opened.writer
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        columns = {r[1] for r in db.execute("PRAGMA table_info(games)")}
        assert {"replaces", "chain"} <= columns
        assert db.execute("SELECT COUNT(*) FROM rating_history").fetchone() == (0,)
        # The counts the triggers keep start from the games already there.
        assert db.execute("SELECT blue, orange, live, blue_wins FROM pair_games").fetchall() == [
            (1, 2, 1, 1),
            (2, 1, 1, 0),
        ]
    finally:
        opened.close()


Counts = tuple[dict[tuple[int, int], tuple[int, ...]], dict[int, int]]


def recounted(db: sqlite3.Connection) -> Counts:
    """The counts the triggers keep, worked out again from every game."""
    pairs = {
        (blue, orange): tuple(counts)
        for blue, orange, *counts in db.execute(
            "SELECT blue, orange, SUM(state != 'void'), SUM(state = 'done' AND winner IS 'blue'),"
            " SUM(state = 'done' AND winner IS 'orange'), SUM(state = 'done' AND winner IS NULL)"
            " FROM games GROUP BY blue, orange"
        )
    }
    versions: Counter[int] = Counter()
    for (blue, orange), counts in pairs.items():
        versions[blue] += counts[0]
        versions[orange] += counts[0]
    return pairs, dict(versions)


def kept(db: sqlite3.Connection) -> Counts:
    pairs = {
        (blue, orange): tuple(counts)
        for blue, orange, *counts in db.execute(
            "SELECT blue, orange, live, blue_wins, orange_wins, draws FROM pair_games"
        )
        if any(counts)
    }
    versions = dict(db.execute("SELECT version_id, live FROM version_games WHERE live != 0"))
    return pairs, versions


STATES = st.sampled_from(["pending", "running", "done", "void"])
WINNERS = st.sampled_from(["blue", "orange", None])
OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(1, 4), st.integers(1, 4), STATES, WINNERS),
        st.tuples(st.just("set"), st.integers(0, 30), STATES, WINNERS),
        st.tuples(st.just("drop"), st.integers(0, 30)),
    ),
    max_size=25,
)


def test_the_counts_the_triggers_keep_are_those_of_the_games(tmp_path: Path) -> None:
    new_arena(tmp_path / "arena", game="tic-tac-toe")
    arena = open_arena(tmp_path / "arena")
    versions = [add_version(arena, f"s{i}", "x") for i in range(4)]
    db = arena.store.writer

    @settings(max_examples=120, deadline=None)
    @given(OPERATIONS)
    def check(operations: list[tuple[object, ...]]) -> None:
        with transaction(db):
            db.execute("DELETE FROM games")
        assert kept(db) == ({}, {})
        for operation in operations:
            ids = [r[0] for r in db.execute("SELECT id FROM games ORDER BY id")]
            before = db.execute("SELECT results FROM ladder_changes").fetchone()[0]
            counted = recounted(db)[0]
            with transaction(db):
                if operation[0] == "add":
                    _, blue, orange, state, winner = operation
                    if blue == orange:
                        continue
                    db.execute(
                        "INSERT INTO games (kind, blue, orange, seed, state, winner, created_at)"
                        " VALUES ('ladder', ?, ?, 1, ?, ?, 'x')",
                        (versions[blue - 1], versions[orange - 1], state, winner),  # type: ignore[index, operator]
                    )
                elif ids and operation[0] == "set":
                    _, at, state, winner = operation
                    db.execute(
                        "UPDATE games SET state = ?, winner = ? WHERE id = ?",
                        (state, winner, ids[at % len(ids)]),  # type: ignore[operator]
                    )
                elif ids:
                    db.execute("DELETE FROM games WHERE id = ?", (ids[operation[1] % len(ids)],))  # type: ignore[operator]
            assert kept(db) == (
                {p: c for p, c in recounted(db)[0].items() if any(c)},
                {v: n for v, n in recounted(db)[1].items() if n},
            )
            after = db.execute("SELECT results FROM ladder_changes").fetchone()[0]
            done_changed = {p: c[1:] for p, c in counted.items() if any(c[1:])} != {
                p: c[1:] for p, c in recounted(db)[0].items() if any(c[1:])
            }
            assert after >= before and (not done_changed or after > before)

    try:
        check()
    finally:
        arena.close()
