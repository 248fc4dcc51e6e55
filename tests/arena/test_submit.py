"""`referee arena submit` and the upload page against a real `referee arena serve` (port 0):
a student's folder packed, uploaded with their token and checked by the server's worker; the
packing itself; the token and the address it needs."""

from __future__ import annotations

import csv
import io
import re
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from referee.arena.submit import SubmitError, arena_url, pack_folder, read_token, unencrypted
from tests.arena.kit import CRASHING_BOT, GOOD_BOT
from tests.arena.serving import serving
from tests.commandline import referee

ROSTER = "username,name,role\nalice,Alice,student\nbob,Bob,student\n"


def names_in(data: bytes) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return archive.getnames()


def test_a_folder_is_packed_without_what_a_student_would_not_mean_to_send(
    tmp_path: Path,
) -> None:
    bot = tmp_path / "bot"
    for name in ("main.py", "lib/util.py", ".git/HEAD", "__pycache__/main.cpython-311.pyc"):
        (bot / name).parent.mkdir(parents=True, exist_ok=True)
        (bot / name).write_text("x")
    (bot / "referee-games" / "check-1").mkdir(parents=True)
    (bot / "referee-games" / "check-1" / "g.jsonl").write_text("{}")
    (bot / "lib" / "util.pyc").write_text("x")
    (bot / "secret").symlink_to("/etc/hostname")
    (bot / "same.py").symlink_to(bot / "main.py")
    (bot / "run").write_text("#!/bin/sh\n")
    (bot / "run").chmod(0o755)
    packed = pack_folder(bot)
    assert sorted(names_in(packed.data)) == ["lib/util.py", "main.py", "run", "same.py"]
    assert packed.files == 4
    assert set(packed.left_out) == {
        ".git",
        "__pycache__",
        "referee-games",
        "lib/util.pyc",
        "secret (a link that leads outside the folder)",
    }
    with tarfile.open(fileobj=io.BytesIO(packed.data)) as archive:
        modes = {m.name: m.mode for m in archive.getmembers()}
        assert archive.extractfile("same.py").read() == b"x"  # type: ignore[union-attr]
    assert modes == {"lib/util.py": 0o644, "main.py": 0o644, "run": 0o755, "same.py": 0o644}
    (bot / "main.py").touch()  # a new time, the same files: the same bytes, the same hash
    assert pack_folder(bot).data == packed.data


def test_the_token_comes_from_a_file_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REFEREE_ARENA_TOKEN", raising=False)
    with pytest.raises(SubmitError, match="no API token: make one on your account page"):
        read_token(None)
    monkeypatch.setenv("REFEREE_ARENA_TOKEN", " from-the-environment\n")
    assert read_token(None) == "from-the-environment"
    (tmp_path / "token").write_text("from-a-file\n")
    assert read_token(tmp_path / "token") == "from-a-file"


def test_the_address_is_an_arenas() -> None:
    assert arena_url("https://arena.example.edu/") == "https://arena.example.edu"
    with pytest.raises(SubmitError, match="give the arena's address"):
        arena_url("arena.example.edu")
    assert unencrypted("http://arena.example.edu")
    assert not unencrypted("http://127.0.0.1:8000")
    assert not unencrypted("https://arena.example.edu")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A real arena server (tic-tac-toe, alice and bob) on a free port: its address and folder."""
    (tmp_path / "roster.csv").write_text(ROSTER)
    made = referee(
        "arena", "new", "ar", "-g", "tic-tac-toe", "--roster", "roster.csv", cwd=tmp_path
    )
    assert made.returncode == 0, made.stderr
    with serving(tmp_path) as url:
        yield url, tmp_path


def token_file(folder: Path, username: str) -> Path:
    made = referee("arena", "token", "ar", username, cwd=folder)
    assert made.returncode == 0, made.stderr
    path = folder / f"{username}.token"
    path.write_text(made.stdout)
    return path


def test_submit_a_folder_and_wait_for_its_check(served: tuple[str, Path]) -> None:
    url, folder = served
    token = token_file(folder, "alice")
    bot = folder / "mybot"
    (bot / "__pycache__").mkdir(parents=True)
    (bot / "bot.py").write_bytes(GOOD_BOT)
    (bot / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    done = referee(
        "arena", "submit", url, "mybot", "--token-file", str(token), "--wait", cwd=folder
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"uploaded as v1: {url}/versions/1" in done.stdout
    assert "packed mybot as mybot.tar.gz: 1 file, " in done.stderr
    assert "left out __pycache__" in done.stderr
    assert "v1: active: it passed its check" in done.stdout
    assert "game 1 (blue): won" in done.stdout and "game 2 (orange): won" in done.stdout
    assert "run: python3 bot.py" in done.stdout


def test_submit_a_crashing_bot_shows_its_stderr_and_exits_1(served: tuple[str, Path]) -> None:
    url, folder = served
    token = token_file(folder, "alice")
    (folder / "crash.py").write_bytes(CRASHING_BOT)
    done = referee(
        "arena", "submit", url, "crash.py", "--token-file", str(token), "--wait", cwd=folder
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "v1: failed" in done.stdout
    assert "ZeroDivisionError" in done.stdout and "the end of your bot's stderr" in done.stdout
    (folder / "wrong.token").write_text("not-a-token\n")
    refused = referee("arena", "submit", url, "crash.py", "--token-file", "wrong.token", cwd=folder)
    assert refused.returncode == 2
    assert "the arena refused: give a valid API token" in refused.stderr


def test_upload_by_the_page_to_a_real_server(served: tuple[str, Path]) -> None:
    url, folder = served
    made = referee("arena", "invite", "ar", "bob", "--passwords", cwd=folder)
    password = next(csv.DictReader(io.StringIO(made.stdout)))["password"]
    token = re.compile(r'name="csrf" value="([^"]+)"')
    with httpx2.Client(base_url=url, headers={"Origin": url}, timeout=30) as browser:
        login = token.search(browser.get("/login").text)
        assert login is not None
        form = {"username": "bob", "password": password, "csrf": login.group(1)}
        assert browser.post("/login", data=form).status_code == 303
        page = token.search(browser.get("/versions").text)
        assert page is not None
        files = {"file": ("bot.py", GOOD_BOT)}
        forged = browser.post("/versions", data={"csrf": "forged"}, files=files)
        assert forged.status_code == 403
        sent = browser.post("/versions", data={"csrf": page.group(1)}, files=files)
        assert sent.status_code == 303
        version = sent.headers["location"]
        for _ in range(600):  # the server's worker checks it within seconds
            status = browser.get(f"{version}/status").json()
            if not status["waiting"]:
                break
            subprocess.run(["sleep", "0.1"], check=True)
        assert status == {"status": "active", "waiting": False}
        assert "run: python3 bot.py" in browser.get(version).text
    kept = list((folder / "ar" / "uploads").iterdir())
    assert [p.read_bytes() for p in kept] == [GOOD_BOT]
