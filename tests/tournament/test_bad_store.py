"""A tournament directory whose store is not a store (random bytes, a truncated copy, a text
file, another program's SQLite database, a store without its description): `tournament run`
and `tournament results` name the file and exit 2, never a traceback, and change nothing;
the web dashboard shows the problem for that folder and goes on serving."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.app.config import load_config
from referee.tournament.resume import open_tournament
from referee.tournament.store import STORE_NAME, StoreError, open_store, open_view
from tests.commandline import referee_here
from tests.conftest import ReadableFolders
from tests.web.conftest import serve_in_thread

CONFIG = """\
name = "spoilt"
game = "alak"
seed = 3
[[players]]
name = "a"
command = "builtin:random"
[[players]]
name = "b"
command = "builtin:random"
"""


def real_store(path: Path) -> bytes:
    """The bytes of a freshly created store of CONFIG."""
    folder = path.parent.parent / "fresh"
    folder.mkdir()
    (folder / "t.toml").write_text(CONFIG)
    open_tournament(load_config(folder / "t.toml"))[0].close()
    return (folder / "t" / STORE_NAME).read_bytes()


def random_bytes(path: Path) -> None:
    path.write_bytes(os.urandom(16384))


def truncated(path: Path) -> None:
    whole = real_store(path)
    path.write_bytes(whole[: len(whole) // 3])


def text_file(path: Path) -> None:
    path.write_text("name,points\nann,3\n" * 100)


def foreign_database(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE grades (student TEXT, grade INTEGER)")
        db.execute("INSERT INTO grades VALUES ('ann', 6)")
    db.close()


def without_description(path: Path) -> None:
    path.write_bytes(real_store(path))
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM meta")
    db.close()


SPOILERS: dict[str, tuple[Callable[[Path], None], str]] = {
    "random-bytes": (random_bytes, "file is not a database"),
    "truncated": (truncated, "tournament store"),
    "text-file": (text_file, "file is not a database"),
    "foreign-database": (foreign_database, "not a tournament store"),
    "no-description": (without_description, "the store lacks config, created_at, game"),
}


def flat(text: str) -> str:
    """Output as one line: the console wraps long messages."""
    return " ".join(text.split())


@pytest.fixture(params=sorted(SPOILERS))
def spoilt(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    """A config whose tournament directory holds a spoilt store, and what the message says."""
    spoil, message = SPOILERS[request.param]
    (tmp_path / "t.toml").write_text(CONFIG)
    (tmp_path / "t").mkdir()
    spoil(tmp_path / "t" / STORE_NAME)
    return tmp_path, message


def test_run_names_the_store_and_changes_nothing(spoilt: tuple[Path, str]) -> None:
    folder, message = spoilt
    before = (folder / "t" / STORE_NAME).read_bytes()
    proc = referee_here("tournament", "run", "t.toml", "-q", cwd=folder)
    assert proc.returncode == 2, proc.stderr
    assert f"t/{STORE_NAME}" in proc.stderr and message in flat(proc.stderr)
    assert "Traceback" not in proc.stderr
    assert (folder / "t" / STORE_NAME).read_bytes() == before
    assert not list((folder / "t" / "games").iterdir())


@pytest.mark.parametrize("target", ["t.toml", "t"])
def test_results_name_the_store(spoilt: tuple[Path, str], target: str) -> None:
    folder, message = spoilt
    proc = referee_here("tournament", "results", target, cwd=folder)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"t/{STORE_NAME}" in proc.stderr and message in flat(proc.stderr)
    assert "Traceback" not in proc.stderr


def test_the_store_api_raises_store_errors(spoilt: tuple[Path, str]) -> None:
    folder, message = spoilt
    with pytest.raises(StoreError, match=re.escape(message)):
        view = open_view(folder / "t")
        try:
            view.info()
        finally:
            view.close()
    with pytest.raises(StoreError, match=re.escape(message)):
        store = open_store(folder / "t")
        try:
            store.info()
        finally:
            store.close()
    os.remove(folder / "t" / STORE_NAME)
    open_store(folder / "t").close()  # the refused open let go of the directory's lock


def test_the_dashboard_shows_the_problem_for_that_folder(
    spoilt: tuple[Path, str], readable_folders: ReadableFolders
) -> None:
    folder, message = spoilt
    good = readable_folders.mktemp("good")
    (good / "g.toml").write_text(CONFIG.replace("spoilt", "fine"))
    open_tournament(load_config(good / "g.toml"))[0].close()
    with serve_in_thread([folder / "t", good / "g"]) as server:
        for path in ("/", "/api/archive", "/api/tournaments"):
            with urllib.request.urlopen(server.url + path, timeout=30) as response:
                assert response.status == 200, path
                body = response.read().decode()
        tournaments = {t["folder"]: t for t in json.loads(body)["tournaments"]}
    assert STORE_NAME in tournaments[0]["error"] and message in tournaments[0]["error"]
    assert tournaments[1]["name"] == "fine" and "error" not in tournaments[1]


def test_a_store_that_breaks_while_open_is_named_when_asked_whether_it_grew(
    tmp_path: Path,
) -> None:
    (tmp_path / "t.toml").write_text(CONFIG)
    store, _ = open_tournament(load_config(tmp_path / "t.toml"))
    try:
        store.db.execute("DROP TABLE meta")
        with pytest.raises(StoreError, match=re.escape(str(tmp_path / "t" / STORE_NAME))):
            store.grown()
    finally:
        store.close()
