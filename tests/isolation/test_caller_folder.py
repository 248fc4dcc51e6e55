"""`referee play` runs both bots in the caller's folder: what of it they are shown.

Run from a course's folder (or from its submissions) with two students' programs, neither bot
sees any other student's submission beside them; run from a folder too big to search whole for
the referee's own records, the part not searched is hidden and the run says so. Every bot here
is a spy (tests/isolation/test_bot_folders.py): as blue, its first line lists every file below
the folder it could read something from, and the game ends on that line."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from referee.tournament.bot_folders import (
    HIDDEN_FILES_MAX,
    HIDDEN_FILES_MAX_BUBBLEWRAP,
    SCAN_ENTRIES,
)
from tests.commandline import referee
from tests.isolation.test_bot_folders import record_header, spy

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="the compiled helper makes the sandbox only for a root referee"
)


def blue_saw(cwd: Path, blue: str, orange: str, *more: str) -> tuple[set[str], str]:
    done = referee(
        "play", "alak", "-p1", f"{sys.executable} {blue}", "-p2", f"{sys.executable} {orange}",
        "--no-random-assignment", "--json", *more, cwd=cwd,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout)["loser_line"].split("|")), done.stderr


def submissions(course: Path) -> Path:
    folder = course / "submissions"
    for student in ("alice", "bob", "carol", "dave"):
        spy(folder / student / "main.py", course)
    (folder / "alice" / "book.txt").write_text("alice's own book")
    (folder / "erin.zip").write_bytes(b"PK\x05\x06" + bytes(18))  # handed in as an archive
    (course / "grading.toml").write_text("# the caller's own file\n")
    return folder


def test_play_from_a_course_folder_shows_no_other_submission(tmp_path: Path) -> None:
    course = tmp_path / "course"
    submissions(course)
    seen, _ = blue_saw(course, "submissions/alice/main.py", "submissions/bob/main.py")
    assert seen == {"grading.toml", "submissions/alice/main.py", "submissions/alice/book.txt"}


def test_play_from_the_submissions_shows_no_other_submission(tmp_path: Path) -> None:
    course = tmp_path / "course"
    folder = submissions(course)
    (folder / "notes.txt").write_text("the caller's notes, no bot's")
    seen, _ = blue_saw(folder, "alice/main.py", "bob/main.py")
    # The course's grading.toml lies above the folder it runs in: never shown.
    assert seen == {
        "submissions/notes.txt",
        "submissions/alice/main.py",
        "submissions/alice/book.txt",
    }


@pytest.mark.parametrize("record", ["n.jsonl", "mine/n.jsonl"])
def test_the_record_being_written_is_hidden_wherever_it_is(tmp_path: Path, record: str) -> None:
    # In the folder the bots run in, or in a bot's own folder (neither can be hidden from the
    # bots whole): the record shows as an empty file, not the game so far, and the bot whose
    # folder holds it still runs.
    spy(tmp_path / "mine" / "main.py", tmp_path)
    spy(tmp_path / "theirs" / "main.py", tmp_path)
    seen, _ = blue_saw(tmp_path, "mine/main.py", "theirs/main.py", "--record", record)
    assert seen == {"mine/main.py"}
    assert (tmp_path / record).read_text().startswith('{"')  # written, where it was asked


def test_a_folder_too_big_to_search_is_hidden_and_said(tmp_path: Path) -> None:
    spy(tmp_path / "mine.py", tmp_path)
    spy(tmp_path / "theirs.py", tmp_path)
    crowd = tmp_path / "aaa"
    crowd.mkdir()
    for index in range(SCAN_ENTRIES + 2000):  # empty: no spy lists them
        (crowd / f"{index:05}").touch()
    (tmp_path / "zzz" / "referee-games").mkdir(parents=True)
    (tmp_path / "zzz" / "old").mkdir()
    (tmp_path / "zzz" / "referee-games" / "0002.jsonl").write_text(record_header())
    (tmp_path / "zzz" / "old" / "game.jsonl").write_text(record_header())
    (tmp_path / "zzz" / "notes.txt").write_text("not looked into, so not shown")
    seen, said = blue_saw(tmp_path, "mine.py", "theirs.py")
    assert seen == {"mine.py"}
    said = " ".join(said.split())
    assert f"{tmp_path} holds more than {SCAN_ENTRIES:,} files and folders" in said
    assert f"(such as {tmp_path / 'zzz'}) are hidden from every bot" in said


def test_a_record_on_the_way_to_a_bots_folder_is_hidden_not_the_bot(tmp_path: Path) -> None:
    # An earlier game's record lies in the folder that holds a bot's folder: that folder cannot
    # be hidden whole (the bot would lose its program and the game by crash); the record is.
    spy(tmp_path / "bots" / "mine" / "main.py", tmp_path)
    spy(tmp_path / "theirs" / "main.py", tmp_path)
    (tmp_path / "bots" / "old.jsonl").write_text(record_header())
    (tmp_path / "bots" / "notes.txt").write_text("the caller's notes")
    seen, _ = blue_saw(tmp_path, "bots/mine/main.py", "theirs/main.py")
    assert seen == {"bots/mine/main.py", "bots/notes.txt"}


def test_a_folder_of_many_records_plays_with_every_record_hidden(tmp_path: Path) -> None:
    # A teacher's folder of `referee play --record gameN.jsonl` games, the bots run in it: it
    # cannot be hidden whole, so each record is hidden by itself, however many there are.
    spy(tmp_path / "mine.py", tmp_path)
    spy(tmp_path / "theirs.py", tmp_path)
    for number in range(1000):
        (tmp_path / f"game{number}.jsonl").write_text(record_header())
    seen, _ = blue_saw(tmp_path, "mine.py", "theirs.py", "--record", "game1000.jsonl")
    assert seen == {"mine.py"}


def test_more_records_than_the_sandbox_can_hide_are_refused_before_any_game(
    tmp_path: Path,
) -> None:
    spy(tmp_path / "mine.py", tmp_path)
    spy(tmp_path / "theirs.py", tmp_path)
    for number in range(HIDDEN_FILES_MAX + 1):
        (tmp_path / f"game{number}.jsonl").write_text(record_header())
    done = referee(
        "play", "alak", "-p1", f"{sys.executable} mine.py", "-p2", f"{sys.executable} theirs.py",
        "--record", str(tmp_path.parent / f"{tmp_path.name}-new.jsonl"), cwd=tmp_path,
    )  # fmt: skip
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    assert f"{tmp_path} holds {HIDDEN_FILES_MAX + 1:,} game records" in said
    assert f"hides at most {HIDDEN_FILES_MAX:,} such files" in said
    assert f"mkdir {tmp_path}/games && mv {tmp_path}/*.jsonl {tmp_path}/games/" in said
    assert not (tmp_path.parent / f"{tmp_path.name}-new.jsonl").exists()  # no game


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed here")
def test_a_tournament_with_more_records_in_a_bots_folder_than_bubblewrap_hides_is_refused(
    tmp_path: Path,
) -> None:
    spy(tmp_path / "bots" / "alice" / "main.py", tmp_path)
    spy(tmp_path / "bots" / "bob" / "main.py", tmp_path)
    alice = tmp_path / "bots" / "alice"
    for number in range(HIDDEN_FILES_MAX_BUBBLEWRAP + 1):
        (alice / f"game{number}.jsonl").write_text(record_header())
    made = referee("tournament", "new", "bots", "-g", "alak", "-o", "t.toml", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    config = tmp_path / "t.toml"
    lines = config.read_text().splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if line.startswith("[match.isolation]"))
    config.write_text(
        "".join([*lines[: at + 1], 'sandbox_program = "bubblewrap"\n', *lines[at + 1 :]])
    )
    done = referee("tournament", "run", "t.toml", "--quiet", cwd=tmp_path)
    said = " ".join(done.stderr.split())
    assert done.returncode != 0, said
    count = HIDDEN_FILES_MAX_BUBBLEWRAP + 1
    assert f"{alice} holds {count:,} game records" in said
    assert f"bubblewrap hides at most {HIDDEN_FILES_MAX_BUBBLEWRAP:,} such files" in said
    assert not (tmp_path / "t" / "games").exists() or not any((tmp_path / "t" / "games").iterdir())
