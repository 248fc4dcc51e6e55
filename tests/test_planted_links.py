"""Every command that makes a folder or writes a file (a game's record, a match's folder, a
tournament's store, the demo, a check's records, a course's folders and pages, a league, an
exported page, a config) stops at a link that another user planted on the way: exit code 2, the
link named with what to do, said before the isolation line (nothing was about to start), no
traceback, and nothing written where the link leads (referee/nofollow.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.commandline import Ran, referee_here

NOBODY = 65534
BOTS = ["-p1", "builtin:random", "-p2", "builtin:greedy"]


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """Where the planted links lead: it must stay empty."""
    folder = tmp_path / "target"
    folder.mkdir()
    return folder


@pytest.fixture
def here(tmp_path: Path) -> Path:
    """The folder the commands run in. Where the tests are not root, a folder every user may
    write to (not sticky): a link there, even one of this user's, may be anybody's."""
    folder = tmp_path / "here"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o777)
    return folder


def plant(link: Path, target: Path) -> None:
    """`link` -> `target`, made by another user (as root: the link's owner is what is judged)."""
    link.symlink_to(target)
    if os.geteuid() == 0:
        os.lchown(link, NOBODY, NOBODY)


def refused(done: Ran, link: str, target: Path) -> str:
    """The one message of a command stopped by the planted `link`."""
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert "Traceback" not in said, said
    assert not any(line.startswith("isolation: ") for line in said.splitlines()), said
    assert f"{link} is a link (made by user " in said, said
    assert "nothing written (remove the link)" in said, said
    assert list(target.iterdir()) == [], list(target.iterdir())
    return " ".join(said.split())


def test_play_stops_before_its_isolation_line(here: Path, target: Path) -> None:
    plant(here / "referee-games", target)
    done = referee_here("play", "tic-tac-toe", *BOTS, cwd=here)
    said = refused(done, "referee-games", target)
    assert said.startswith("referee: cannot write the record: referee-games is a link")


def test_match_stops_before_anything_is_made(here: Path, target: Path) -> None:
    plant(here / "referee-matches", target)
    done = referee_here("match", "tic-tac-toe", *BOTS, "--games", "2", "-q", cwd=here)
    said = refused(done, "referee-matches", target)
    assert said.startswith("referee: cannot write the match: referee-matches is a link")
    assert sorted(p.name for p in here.iterdir()) == ["referee-matches"]


def test_a_tournament_whose_directory_is_reached_through_a_link_is_refused(
    here: Path, target: Path
) -> None:
    plant(here / "out", target)
    (here / "cup.toml").write_text(
        'name = "cup"\ngame = "tic-tac-toe"\ndirectory = "out/cup"\n'
        '[[players]]\nname = "a"\ncommand = "builtin:random"\n'
        '[[players]]\nname = "b"\ncommand = "builtin:greedy"\n'
    )
    said = refused(referee_here("tournament", "run", "cup.toml", "-q", cwd=here), "out", target)
    assert said.startswith("referee: cannot write the tournament: out is a link")


def test_demo(here: Path, target: Path) -> None:
    plant(here / "demo", target)
    done = referee_here("demo", "--dir", "demo", "-g", "tic-tac-toe", "-q", cwd=here)
    said = refused(done, "demo", target)
    assert said.startswith("referee: cannot write the demo: demo is a link")


@pytest.mark.parametrize("records", [None, "out/mine"])
def test_check(here: Path, target: Path, records: str | None) -> None:
    link = "referee-games" if records is None else "out"
    plant(here / link, target)
    asked = [] if records is None else ["--records", records]
    done = referee_here("check", "tic-tac-toe", "builtin:random", "-n", "1", *asked, cwd=here)
    said = refused(done, link, target)
    assert said.startswith(f"referee check: cannot write the records: {link} is a link")


def test_course_folders(here: Path, target: Path) -> None:
    plant(here / "out", target)
    refused(
        referee_here("course", "new", "out/course", "-g", "tic-tac-toe", cwd=here), "out", target
    )
    course = here / "course"
    assert referee_here("course", "new", "course", "-g", "tic-tac-toe", cwd=here).returncode == 0
    (course / "submissions" / "alice").mkdir()
    (course / "submissions" / "alice" / "main.py").write_text("print('ready')\n")
    plant(course / "work", target)
    done = referee_here("course", "collect", "-C", "course", cwd=here)
    refused(done, "course/work", target)


def test_league_and_exported_pages(here: Path, target: Path) -> None:
    plant(here / "out", target)
    refused(referee_here("league", "new", "out/league", cwd=here), "out", target)
    assert referee_here("league", "new", "league", cwd=here).returncode == 0
    done = referee_here("league", "export", "league", "--html", "out/pages", cwd=here)
    refused(done, "out", target)
    for index in (here / "league").glob("league.sqlite*"):
        index.unlink()
    plant(here / "league" / "league.sqlite", target / "index")
    done = referee_here("league", "rate", "league", cwd=here)
    refused(done, "league/league.sqlite", target)


def test_replay_page_and_tournament_config(here: Path, target: Path) -> None:
    plant(here / "out", target)
    # In a folder of its own: `here` may be open to every user, where no record is written.
    played = referee_here("play", "tic-tac-toe", *BOTS, "--record", "mine/game.jsonl", cwd=here)
    assert played.returncode == 0, played.stderr
    done = referee_here("replay", "mine/game.jsonl", "--html", "-o", "out/game.html", cwd=here)
    refused(done, "out", target)
    (here / "bots" / "a").mkdir(parents=True)
    (here / "bots" / "a" / "main.py").write_text("print('a')\n")
    done = referee_here(
        "tournament", "new", "bots", "-g", "tic-tac-toe", "-o", "out/t.toml", cwd=here
    )
    refused(done, "out", target)
    assert (here / "bots" / "a" / "main.py").is_file()  # nothing moved either


def test_course_new_writes_nothing_where_its_last_file_is_a_planted_link(
    here: Path, target: Path
) -> None:
    course = here / "course"
    course.mkdir()
    if os.geteuid() != 0:
        course.chmod(0o777)  # anybody's folder: a link in it may be anybody's
    plant(course / "grading.toml", target / "grading.toml")
    done = referee_here("course", "new", "course", "-g", "tic-tac-toe", cwd=here)
    said = done.stdout + done.stderr
    assert done.returncode == 2 and "grading.toml is a link (made by user " in said, said
    assert sorted(p.name for p in course.iterdir()) == ["grading.toml"]  # nothing else written
    assert list(target.iterdir()) == []
