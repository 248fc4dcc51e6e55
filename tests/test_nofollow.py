"""The referee's own files are created without following a link someone else planted: a
folder the referee makes and the file itself never through a link, an existing link on the way
only where nobody but root or the referee's user could have put it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.nofollow import (
    PlantedLink,
    check_file,
    check_folder,
    create_file,
    make_folder,
    make_new_folder,
    refuse_links,
    write_file,
)
from referee.records import RecordWriter

NOBODY = 65534


def write(path: Path, text: str = "mine") -> None:
    with os.fdopen(create_file(path), "w") as file:
        file.write(text)


def planted(link: Path, target: Path) -> None:
    """`link` -> `target`, made by another user (the link's owner is what is judged)."""
    link.symlink_to(target)
    if os.geteuid() == 0:
        os.lchown(link, NOBODY, NOBODY)


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """A folder every user may write to, as /tmp or a class's shared folder."""
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)
    return folder


def test_missing_folders_are_made_and_the_file_written(tmp_path: Path) -> None:
    write(tmp_path / "games" / "deep" / "0001.jsonl")
    assert (tmp_path / "games" / "deep" / "0001.jsonl").read_text() == "mine"


def test_a_link_planted_in_a_folder_others_may_write_is_not_followed(
    shared: Path, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    planted(shared / "referee-games", target)
    with pytest.raises(PlantedLink, match="referee-games is a link"):
        write(shared / "referee-games" / "game.jsonl")
    assert list(target.iterdir()) == []


def test_the_file_itself_is_never_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    (tmp_path / "game.jsonl").symlink_to(victim)  # even one of this user's own
    with pytest.raises(PlantedLink, match=r"game\.jsonl is a link"):
        write(tmp_path / "game.jsonl")
    assert victim.read_text() == "untouched"


def test_an_earlier_file_is_replaced_not_written_through(tmp_path: Path) -> None:
    earlier = tmp_path / "game.jsonl"
    earlier.write_text("earlier")
    other_name = tmp_path / "hard-link"
    os.link(earlier, other_name)  # another name of the same file keeps its contents
    write(earlier)
    assert earlier.read_text() == "mine"
    assert other_name.read_text() == "earlier"


def test_a_folder_where_the_file_goes_is_refused(tmp_path: Path) -> None:
    (tmp_path / "game.jsonl").mkdir()
    with pytest.raises(PlantedLink, match="is a folder"):
        write(tmp_path / "game.jsonl")


def test_a_link_only_root_or_this_user_could_have_made_is_followed(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "records").symlink_to(real)  # this user's, in this user's own folder
    write(tmp_path / "records" / "game.jsonl")
    assert (real / "game.jsonl").read_text() == "mine"


@pytest.mark.skipif(os.geteuid() != 0, reason="a link of another user needs root to make")
def test_another_users_link_is_not_followed_even_in_a_closed_folder(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    planted(tmp_path / "records", real)
    with pytest.raises(PlantedLink, match=f"made by user {NOBODY}"):
        write(tmp_path / "records" / "game.jsonl")


def test_the_record_writer_follows_no_planted_link(shared: Path, tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    planted(shared / "games", target)
    with pytest.raises(PlantedLink):
        RecordWriter(shared / "games" / "0001.jsonl")
    assert list(target.iterdir()) == []


def test_a_file_written_whole_follows_no_planted_link(shared: Path, tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    planted(shared / "pages", target)
    with pytest.raises(PlantedLink, match="pages is a link"):
        write_file(shared / "pages" / "index.html", "mine")
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    planted(shared / "index.html", victim)
    with pytest.raises(PlantedLink, match=r"index\.html is a link"):
        write_file(shared / "index.html", "mine")
    assert victim.read_text() == "untouched" and list(target.iterdir()) == []
    earlier = tmp_path / "deep" / "er" / "page.html"
    write_file(earlier, "earlier")
    os.link(earlier, tmp_path / "hard-link")
    write_file(earlier, "mine", sync=True)  # renamed over it: another name keeps the old file
    assert earlier.read_text() == "mine" and (tmp_path / "hard-link").read_text() == "earlier"
    assert sorted(p.name for p in earlier.parent.iterdir()) == ["page.html"]  # nothing aside


def test_folders_are_made_or_checked_without_following_a_planted_link(
    shared: Path, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    planted(shared / "matches", target)
    for refuse in (make_folder, check_folder, make_new_folder):
        with pytest.raises(PlantedLink, match="matches is a link"):
            refuse(shared / "matches" / "a-vs-b")
    with pytest.raises(PlantedLink, match="matches is a link"):
        check_file(shared / "matches" / "a-vs-b" / "match.toml")
    assert list(target.iterdir()) == []
    # A check makes nothing; the folder made is found by the next check.
    check_folder(tmp_path / "new" / "deeper")
    check_file(tmp_path / "new" / "deeper" / "game.jsonl")
    assert not (tmp_path / "new").exists()
    make_folder(tmp_path / "new" / "deeper")
    check_folder(tmp_path / "new" / "deeper")
    make_new_folder(tmp_path / "new" / "deeper" / "check-1")
    with pytest.raises(FileExistsError):
        make_new_folder(tmp_path / "new" / "deeper" / "check-1")


def test_files_opened_by_path_are_never_links(shared: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    (shared / "store.sqlite").write_text("a store")
    refuse_links(shared, ["store.sqlite", "store.sqlite-wal"])  # a file, and none
    planted(shared / "store.sqlite-wal", victim)
    with pytest.raises(PlantedLink, match=r"store\.sqlite-wal is a link"):
        refuse_links(shared, ["store.sqlite", "store.sqlite-wal"])
    assert victim.read_text() == "untouched"


def foreign(folder: Path) -> None:
    """`folder` made another user's where this process may (root), else open to every user:
    either way someone else could replace what is written in it."""
    folder.mkdir()
    folder.chmod(0o777)
    if os.geteuid() == 0:
        os.chown(folder, NOBODY, NOBODY)


def test_a_file_in_a_folder_another_user_may_replace_it_in_is_refused(tmp_path: Path) -> None:
    # A root `referee play` wrote its records into a `referee-games` made by nobody (mode 777),
    # who could then replace them.
    foreign(tmp_path / "referee-games")
    record = tmp_path / "referee-games" / "game.jsonl"
    for attempt in (check_file, write):
        with pytest.raises(PlantedLink, match=r"referee-games (belongs to user|can be written)"):
            attempt(record)
    assert list((tmp_path / "referee-games").iterdir()) == []


def test_a_file_in_a_sticky_folder_of_roots_or_this_user_is_written(shared: Path) -> None:
    # /tmp: others may make files there, but not replace this user's.
    write(shared / "game.jsonl")
    assert (shared / "game.jsonl").read_text() == "mine"
