"""The staff's controls of the ladder: pause and resume, re-run a game, disqualify a version,
the games running and waiting; each audited, each refused plainly when it cannot be done."""

from __future__ import annotations

import pytest

from referee.arena.audit import entries
from referee.arena.controls import (
    ControlError,
    disqualify_version,
    is_paused,
    queue,
    rerun_game,
    running_count,
    set_paused,
)
from referee.arena.folder import Arena
from referee.arena.ladder_store import schedule_snapshot, take_next
from referee.arena.ratings import cached, recompute
from referee.arena.rows import Game, GameKind, GameState, VersionStatus
from tests.arena.ladder_rows import START, add_game, add_version

STAFF = 3  # tess, in the arena fixture's roster


def game(arena: Arena, game_id: int) -> Game:
    row = arena.store.writer.execute(f"SELECT {Game.COLUMNS} FROM games WHERE id = ?", (game_id,))
    return Game.of(row.fetchone())


def test_pause_and_resume_are_audited(arena: Arena) -> None:
    db = arena.store.writer
    assert not is_paused(db)
    set_paused(db, START, STAFF, True)
    assert is_paused(db) and is_paused(arena.store.reader)
    set_paused(db, START, STAFF, False)
    assert not is_paused(db)
    assert [(e.action, e.account_id) for e in entries(db)][:2] == [
        ("resume", STAFF),
        ("pause", STAFF),
    ]


def test_a_rerun_replaces_a_finished_game_s_result(arena: Arena) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    db = arena.store.writer
    first = add_game(arena, a, b, winner="blue", seed=99, opening=["5", "1"])
    add_game(arena, b, a, winner="blue")
    recompute(db, START, min_games=0)
    before = {r.version_id: r.games for r in cached(db)}
    new = rerun_game(db, START, STAFF, first)
    old, rerun = game(arena, first), game(arena, new)
    assert old.state is GameState.VOID and f"re-run as game {new}" in (old.detail or "")
    assert old.winner == "blue"  # what it was stays readable
    assert rerun.kind is GameKind.RERUN and rerun.state is GameState.PENDING
    assert rerun.replaces == first and rerun.attempt == 1
    assert (rerun.blue, rerun.orange, rerun.seed, rerun.opening) == (a, b, 99, ("5", "1"))
    recompute(db, START, min_games=0)
    assert {r.version_id: r.games for r in cached(db)} == {v: n - 1 for v, n in before.items()}
    (note, *_) = entries(db)
    assert (note.action, note.target, note.account_id) == ("rerun-game", f"game {first}", STAFF)
    # The re-run is the next game played.
    taken = take_next(db, START)
    assert taken is not None and taken.id == new


def test_a_rerun_is_refused_for_a_game_not_finished_or_not_there(arena: Arena) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    db = arena.store.writer
    pending = add_game(arena, a, b, state="pending")
    void = add_game(arena, a, b, state="void", reason="infrastructure")
    for game_id, said in ((pending, "is pending"), (void, "is void"), (99, "no game 99")):
        with pytest.raises(ControlError, match=said):
            rerun_game(db, START, STAFF, game_id)
    done = add_game(arena, a, b, winner="blue")
    disqualify_version(db, START, STAFF, b)
    with pytest.raises(ControlError, match="disqualified"):
        rerun_game(db, START, STAFF, done)
    assert game(arena, done).state is GameState.DONE  # nothing changed
    assert [e.action for e in entries(db)][:2] == ["disqualify-version", "import-roster"]


def test_a_disqualified_version_plays_no_more_and_keeps_its_results(arena: Arena) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    c = add_version(arena, "carol", "x")
    db = arena.store.writer
    # Wins both ways in each pair: every rating finite, every version ranked.
    done = [add_game(arena, a, b, winner=w) for w in ("blue", "blue", "orange")]
    done += [add_game(arena, b, c, winner=w) for w in ("blue", "orange", "blue")]
    waiting = add_game(arena, b, a, state="pending")
    playing = add_game(arena, a, b, state="running")
    recompute(db, START, min_games=0)
    assert {r.version_id for r in cached(db) if r.rank is not None} == {a, b, c}
    disqualify_version(db, START, STAFF, a, "copied code")
    status = db.execute("SELECT status FROM versions WHERE id = ?", (a,)).fetchone()[0]
    assert status == VersionStatus.DISQUALIFIED
    assert game(arena, waiting).state is GameState.VOID  # withdrawn
    assert game(arena, playing).state is GameState.RUNNING  # finishes
    assert all(game(arena, g).state is GameState.DONE for g in done)  # results stay
    assert a not in {e.version for e in schedule_snapshot(db, START, arena.config, 2).entrants}
    recompute(db, START, min_games=0)
    ranked = {r.version_id: r for r in cached(db)}
    assert ranked[a].rank is None and ranked[a].games == 3  # rated from its games, not ranked
    assert ranked[b].rank is not None
    (note, *_) = entries(db)
    assert (note.action, note.target, note.detail) == (
        "disqualify-version",
        f"version {a}",
        "copied code",
    )
    with pytest.raises(ControlError, match="disqualified already"):
        disqualify_version(db, START, STAFF, a)
    with pytest.raises(ControlError, match="no version 999"):
        disqualify_version(db, START, STAFF, 999)


def test_the_queue_lists_the_games_running_then_those_waiting(arena: Arena) -> None:
    a, b = add_version(arena, "alice", "x"), add_version(arena, "bob", "x")
    db = arena.store.writer
    add_game(arena, a, b, winner="blue")
    waiting = add_game(arena, a, b, state="pending")
    playing = add_game(arena, b, a, state="running")
    replay = add_game(arena, b, a, state="pending", replaces=waiting, attempt=2)
    assert running_count(db) == 1
    assert [g.id for g in queue(db)] == [playing, replay, waiting]


def test_a_failed_version_is_not_disqualified(arena: Arena) -> None:
    failed = add_version(arena, "alice", status=VersionStatus.FAILED, activated=None)
    db = arena.store.writer
    with pytest.raises(ControlError, match="failed its check"):
        disqualify_version(db, START, STAFF, failed, "x")
    status = db.execute("SELECT status FROM versions WHERE id = ?", (failed,)).fetchone()[0]
    assert status == VersionStatus.FAILED
    assert all(e.action != "disqualify-version" for e in entries(db))
