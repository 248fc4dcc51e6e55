"""The final, played for real (tiny tic-tac-toe bots in their versions' folders): on the versions
pinned at the deadline (a later upload is not in it, a student without a version is absent),
in DIR/final as a normal tournament that `referee tournament verify` checks game by game, with
a schedule that the seed and the pins alone decide; the server's final stopped mid-way and
started again plays each game once; its grades name the version each was earned with."""

from __future__ import annotations

import csv
import fcntl
import io
import os
import shutil
import sqlite3
import stat
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import trio

from referee.arena import accounts, final_task
from referee.arena.final import FinalError, final_config_path, prepare_final
from referee.arena.final_progress import FinalProgress, final_progress
from referee.arena.finalists import entries, pin, pinned_at
from referee.arena.folder import new_arena, open_arena
from referee.arena.grades import GradesError, computed_at, final_grades
from referee.arena.roster import Person
from referee.arena.rows import Role
from referee.arena.sessions import CookieSigner
from referee.arena.web.site import Site
from referee.tournament.events import Event, GameFinished
from referee.tournament.formats import make_schedule
from referee.tournament.store import GameState, open_view
from tests.arena.conftest import PASSWORD, browser, log_in
from tests.arena.final_kit import (
    CENTRE_FIRST,
    DEADLINE,
    FINAL,
    FIRST_FREE,
    LAST_FREE,
    add_students,
    add_version,
    bot,
    with_deadline,
    write_final_file,
)
from tests.commandline import referee
from tests.conftest import ReadableFolders
from tests.replay.tamper import edit_detail, tamper

CRASH = "import sys\nsys.exit(3)\n"


def make_arena(root: Path, seed: int = 5) -> dict[str, int]:
    """An arena of four students: alice and bob with a version each (bob's second came late),
    carol on her second, dave with nothing but a late upload. Their version ids by name."""
    new_arena(root, game="tic-tac-toe", name="Final <b>test</b>")
    arena = open_arena(root)
    try:
        write_final_file(arena, FINAL.format(seed=seed))
        add_students(arena, "alice", "bob", "carol", "dave")
        made = {
            "alice": add_version(arena, "alice", bot(FIRST_FREE)),
            "bob": add_version(arena, "bob", bot(LAST_FREE)),
        }
        after = DEADLINE + timedelta(hours=2)  # kept, as late: never played
        add_version(arena, "bob", CRASH, status="received", late=True, created=after)
        made["carol-1"] = add_version(arena, "carol", bot(FIRST_FREE))
        made["carol"] = add_version(arena, "carol", bot(CENTRE_FIRST))
        add_version(arena, "dave", bot(FIRST_FREE), status="received", late=True, created=after)
    finally:
        arena.close()
    return made


@pytest.fixture(scope="module")
def played(readable_folders: ReadableFolders) -> tuple[Path, dict[str, int]]:
    """An arena whose final the staff played with the command, and graded."""
    base = readable_folders.mktemp("final")
    versions = make_arena(base / "ar")
    done = referee("arena", "final", "ar", "--now", "-q", cwd=base)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the grades of 4 students are kept, hidden until released" in done.stderr
    graded = referee("arena", "grades", "ar", "--release", cwd=base)
    assert graded.returncode == 0, graded.stderr
    return base / "ar", versions


def test_the_final_plays_the_versions_pinned_and_nothing_later(
    played: tuple[Path, dict[str, int]],
) -> None:
    root, versions = played
    text = (root / "final" / "tournament.toml").read_text()
    config = tomllib.loads(text)
    players = {p["name"]: p for p in config["players"]}
    assert list(players) == ["builtin-random", "alice", "bob", "carol"]
    for name in ("alice", "bob", "carol"):
        assert players[name]["cwd"] == f"../versions/{versions[name]}"
    assert f"# carol: version 2 (id {versions['carol']}), content sha256 " in text
    assert "Absent (no version to play): dave." in text
    assert config["directory"] == "." and config["seed"] == 5
    view = open_view(root / "final")
    try:
        assert sorted(view.players()) == ["alice", "bob", "builtin-random", "carol"]
        rows = view.games()
    finally:
        view.close()
    assert len(rows) == 12 and all(r.state is GameState.FINISHED for r in rows)
    crashed = [(r.number, r.detail) for r in rows if r.reason and r.reason.value == "crash"]
    assert not crashed  # bob's late bot never plays


def test_tournament_verify_checks_every_game_of_the_final(
    played: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    root, _ = played
    checked = referee("tournament", "verify", "ar/final", cwd=root.parent)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "verified 12 finished games: every record holds" in checked.stdout
    spoiled = Path(shutil.copytree(root / "final", tmp_path / "final"))
    tamper(spoiled / "games" / "0007.jsonl", edit_detail)
    caught = referee("tournament", "verify", "final", cwd=tmp_path)
    assert caught.returncode == 1, caught.stdout
    assert "game 7 (games/0007.jsonl): " in caught.stdout
    assert "verified 12 finished games: 1 failed" in caught.stdout


def test_the_grades_name_the_version_they_were_earned_with(
    played: tuple[Path, dict[str, int]],
) -> None:
    root, _ = played
    path = root / "grades.csv"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    rows = {r["username"]: r for r in csv.DictReader(io.StringIO(path.read_text()))}
    assert list(rows) == ["alice", "bob", "carol", "dave"]
    assert [rows[n]["version"] for n in rows] == ["1", "1", "2", ""]
    assert rows["dave"]["games"] == "0" and rows["dave"]["rank"] == ""
    assert all(rows[n]["games"] == "6" and rows[n]["grade"] for n in ("alice", "bob", "carol"))
    assert {rows[n]["rank"] for n in ("alice", "bob", "carol")} <= {"1", "2", "3"}


def test_the_same_pins_and_seed_make_the_same_schedule(
    played: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    root, _ = played
    view = open_view(root / "final")
    try:
        played_schedule = [(r.number, r.blue, r.orange, r.seed) for r in view.games()]
    finally:
        view.close()

    def schedule(folder: Path, seed: int) -> list[tuple[int, str, str, int]]:
        make_arena(folder, seed)
        arena = open_arena(folder)
        try:
            pin(arena.store.writer, DEADLINE, None)
            loaded = prepare_final(arena)
        finally:
            arena.close()
        return [(g.number, g.blue, g.orange, g.seed) for g in make_schedule(loaded.config)]

    assert schedule(tmp_path / "again", 5) == played_schedule
    other = schedule(tmp_path / "other", 6)  # another seed: other games
    assert [g[3] for g in other] != [g[3] for g in played_schedule]


def test_a_version_changed_after_the_pin_is_never_played(tmp_path: Path) -> None:
    versions = make_arena(tmp_path / "ar")
    arena = open_arena(tmp_path / "ar")
    try:
        pin(arena.store.writer, DEADLINE, None)
        prepare_final(arena)
        bot_file = arena.paths.versions / str(versions["bob"]) / "bot.py"
        bot_file.write_text(bot_file.read_text() + "# one more line\n")
        with pytest.raises(FinalError, match=r"bob's version 1: its files or its command changed"):
            prepare_final(arena)
    finally:
        arena.close()


async def test_the_server_s_final_resumes_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped after its first game (a server stopped, or killed), the final plays the rest
    when the server starts again, each game once; then its grades are kept."""
    make_arena(tmp_path / "ar")
    arena = with_deadline(open_arena(tmp_path / "ar"))
    clock = lambda: DEADLINE + timedelta(minutes=5)  # noqa: E731
    first_done = trio.Event()

    def watch(event: Event) -> None:
        if isinstance(event, GameFinished):
            first_done.set()

    try:
        with monkeypatch.context() as patched:
            patched.setattr(final_task, "log_event", watch)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(final_task.final_at_deadline, arena, clock)
                await first_done.wait()
                nursery.cancel_scope.cancel()
        assert await arena.store.read(pinned_at) == "2026-12-16T00:04:00.000000+00:00"
        view = open_view(final_config_path(arena).parent)
        try:
            states = [r.state for r in view.games()]
        finally:
            view.close()
        assert GameState.RUNNING not in states  # given back when the server stopped
        assert 0 < states.count(GameState.FINISHED) < len(states) == 12
        assert await arena.store.read(computed_at) is None
        await final_task.final_at_deadline(arena, clock)  # the server started again
        assert await arena.store.read(computed_at) is not None
    finally:
        arena.close()
    with sqlite3.connect(tmp_path / "ar" / "final" / "tournament.sqlite") as db:
        counted = db.execute(
            "SELECT number, COUNT(*) FROM attempts WHERE outcome = 'finished' GROUP BY number"
        ).fetchall()
    assert sorted(n for n, _ in counted) == list(range(1, 13))
    assert all(times == 1 for _, times in counted)
    checked = referee("tournament", "verify", "final", cwd=tmp_path / "ar")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_what_cannot_be_written_or_read_is_said_not_a_crash(
    played: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    root = Path(shutil.copytree(played[0], tmp_path / "ar", symlinks=True))
    (root / "grades.csv").unlink()
    (root / "grades.csv").mkdir()  # in the way of the export
    done = referee("arena", "grades", "ar", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "cannot write" in done.stderr and "Traceback" not in done.stderr
    (root / "final" / "tournament.sqlite").write_bytes(b"not a database at all" * 100)
    done = referee("arena", "grades", "ar", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "tournament.sqlite" in done.stderr and "Traceback" not in done.stderr


def test_a_final_folder_that_cannot_be_written_is_said(tmp_path: Path) -> None:
    make_arena(tmp_path / "ar")
    (tmp_path / "ar" / "final").write_text("a file where the final's folder goes\n")
    arena = open_arena(tmp_path / "ar")
    try:
        pin(arena.store.writer, DEADLINE, None)
        with pytest.raises(FinalError, match=r"cannot write the final's config"):
            prepare_final(arena)
    finally:
        arena.close()


def test_the_staff_page_and_the_queue_show_the_pin_and_the_final_s_progress(
    played: tuple[Path, dict[str, int]], readable_folders: ReadableFolders
) -> None:
    copy = readable_folders.mktemp("final-pages") / "ar"
    shutil.copytree(played[0], copy)
    arena = open_arena(copy)
    try:
        assert final_progress(copy) == FinalProgress(finished=12, running=0, total=12)
        assert final_progress(copy.parent) is None  # no final there
        people = [Person("tess", "Tess", Role.STAFF, None, 0)]
        done = accounts.import_roster(arena.store.writer, people, datetime(2026, 9, 1, tzinfo=UTC))
        accounts.set_password(
            arena.store.writer, done.added[0].id, accounts.hash_password(PASSWORD)
        )
        site = Site(arena.store, arena.config, CookieSigner(arena.secret))
        with browser(site) as client:
            log_in(client, "tess")
            page = client.get("/staff").text
            queue = client.get("/queue").text
    finally:
        arena.close()
    assert "versions pinned at" in page and "12 of its 12 games played (over)" in page
    assert "<strong>closed</strong>: the final&#39;s versions are pinned" in page
    assert "<strong>stopped</strong>: the final&#39;s versions are pinned" in page
    assert 'id="final-progress"' in queue and "12 of its 12 games played" in queue


def test_grades_asked_while_the_final_is_played_say_so(
    played: tuple[Path, dict[str, int]], readable_folders: ReadableFolders
) -> None:
    copy = readable_folders.mktemp("final-running") / "ar"
    shutil.copytree(played[0], copy)
    with sqlite3.connect(copy / "final" / "tournament.sqlite") as db:
        db.execute("UPDATE games SET state = 'running' WHERE number = 1")
    arena = open_arena(copy)
    try:
        people = entries(arena.store.writer)
        with pytest.raises(GradesError, match=r"`referee arena final .*` plays it"):
            final_grades(arena, people, DEADLINE)
        holder = os.open(copy / "final" / "tournament.lock", os.O_RDWR)
        try:
            fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as the server's final holds it
            with pytest.raises(GradesError, match="being played right now") as said:
                final_grades(arena, people, DEADLINE)
            assert "plays it" not in str(said.value)
        finally:
            os.close(holder)
    finally:
        arena.close()
