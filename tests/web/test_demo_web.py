"""The dashboard is reachable: `referee serve` finds tournaments in subfolders (the demo's layout)
and serves the demo's folder when given none, and `referee demo --web` serves its tournaments
while they play, saying where first, and ends naming the commands that show them again."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

import pytest

from referee import EXIT_INTERRUPTED
from referee.app.config import load_config
from referee.tournament.resume import open_tournament
from tests.web.conftest import serve_in_thread
from tests.web.test_server import start_referee


def make_tournament(config: Path, name: str) -> None:
    """A tournament's store and schedule, as `tournament run` leaves them before any game."""
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'name = "{name}"\ngame = "alak"\ndirectory = "{config.stem}"\n'
        '[[players]]\nname = "x"\ncommand = "builtin:random"\n'
        '[[players]]\nname = "y"\ncommand = "builtin:random"\n'
    )
    store, _ = open_tournament(load_config(config))
    store.close()


def demo_shaped(folder: Path) -> None:
    make_tournament(folder / "alak.toml", "demo: alak")
    make_tournament(folder / "lielow.toml", "demo: lielow")
    make_tournament(folder / ".old" / "alak.toml", "hidden")
    make_tournament(folder / "a" / "b" / "c" / "too-deep.toml", "too deep")


def names(url: str) -> dict[str, str]:
    found = json.loads(urlopen(url + "/api/tournaments", timeout=30).read())["tournaments"]
    return {t["id"]: t["name"] for t in found}


def test_tournaments_in_subfolders_are_found_to_a_bounded_depth(tmp_path: Path) -> None:
    demo_shaped(tmp_path)
    make_tournament(tmp_path / "a" / "b" / "deep.toml", "deep enough")
    with serve_in_thread([tmp_path]) as server:
        assert names(server.url) == {
            "0/a/b/deep": "deep enough",
            "0/alak": "demo: alak",
            "0/lielow": "demo: lielow",
        }


def test_serve_with_no_folder_serves_the_demo(tmp_path: Path) -> None:
    demo_shaped(tmp_path / "referee-demo")
    process, url = start_referee("serve", "--port", "0", cwd=tmp_path)
    try:
        assert names(url) == {"0/alak": "demo: alak", "0/lielow": "demo: lielow"}
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.slow
def test_demo_web_serves_the_dashboard_while_it_plays(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "referee", "demo", "--game", "alak", "--games-per-pairing",
               "1", "--movetime", "0.05", "--dir", "out", "-q", "--web", "--port", "0"]  # fmt: skip
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert process.stderr is not None
        first = process.stderr.readline()  # before any bot is probed or game played
        found = re.fullmatch(r"dashboard: (http://127\.0\.0\.1:\d+)/ .*\n", first)
        assert found, first
        url = found.group(1)
        served: dict[str, str] = {}
        deadline = time.monotonic() + 120
        while not served and process.poll() is None and time.monotonic() < deadline:
            try:
                served = names(url)
            except (URLError, ConnectionError):
                time.sleep(0.05)  # the tournament's server is not up yet
        assert served == {"0": "demo: alak"}  # served on the address printed first
        out, rest = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, rest
    assert "Standings" in out
    *_, serve, replay = rest.strip().splitlines()
    where = (tmp_path / "out").resolve()
    assert serve.split() == ["referee", "serve", str(where)]
    assert replay.split()[:2] == ["referee", "replay"]
    record = Path(replay.split()[2])
    assert record.is_file() and record.is_relative_to(where / "alak" / "games")


def test_an_interrupted_demo_says_once_how_to_resume(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "referee", "demo", "--game", "alak", "--games-per-pairing",
               "1", "--movetime", "0.2", "--dir", "out", "-q"]  # fmt: skip
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        first_record = tmp_path / "out" / "alak" / "games" / "0001.jsonl"
        while not first_record.exists() and process.poll() is None:
            assert time.monotonic() < deadline, "no game started"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, said = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == EXIT_INTERRUPTED, said
    hints = [line for line in said.splitlines() if "to resume" in line]
    assert len(hints) == 1 and "referee demo --dir out" in hints[0], said
