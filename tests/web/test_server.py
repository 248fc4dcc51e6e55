"""The web server over real HTTP: pages, the archive, replay JSON, live events, and refusals."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from referee.replay import build_replay
from referee.web.live import LiveMatch
from tests.conftest import ReadableFolders
from tests.replay.make_records import GAMES, random_record, record_lines
from tests.web.conftest import ServerThread, serve_in_thread

SECRET = "top secret: not a record of this folder"


@pytest.fixture(scope="module")
def folders(readable_folders: ReadableFolders) -> dict[str, Path]:
    base = readable_folders.mktemp("served")
    games = base / "games"
    (games / "round-1").mkdir(parents=True)
    for number, game in enumerate(GAMES):
        random_record(games / "round-1" / f"{game}.jsonl", game, number)
    random_record(games / "top.jsonl", "alak", 9)
    (games / ".hidden").mkdir()
    random_record(games / ".hidden" / "h.jsonl", "alak", 1)
    (games / "notes.jsonl").write_text("not json at all\n")
    (games / "readme.txt").write_text("a text file in a served folder\n")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.jsonl").write_text(json.dumps({"type": "header", "note": SECRET}) + "\n")
    os.symlink(outside / "secret.jsonl", games / "link.jsonl")
    return {"games": games, "outside": outside}


@pytest.fixture(scope="module")
def server(folders: dict[str, Path]) -> Iterator[ServerThread]:
    with serve_in_thread([folders["games"]]) as running:
        yield running


def get(server: ServerThread, path: str, **headers: str) -> tuple[int, str]:
    """A raw GET: the path is sent exactly as given (no client-side normalising)."""
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def test_pages_and_static_files_are_served(server: ServerThread) -> None:
    for path in ("/", "/live/1", "/replay/0/top.jsonl", "/static/player.js"):
        status, body = get(server, path)
        assert status == 200, path
    status, body = get(server, "/games/renderers.js")  # every game's, from its own folder
    assert status == 200
    assert all(f'R.renderers["{game}"]' in body for game in GAMES)


def test_archive_lists_the_records_of_the_served_folder(server: ServerThread) -> None:
    status, body = get(server, "/api/archive")
    assert status == 200
    records = {r["id"]: r for r in json.loads(body)["records"]}
    expected = {f"0/round-1/{game}.jsonl" for game in GAMES} | {"0/top.jsonl"}
    assert set(records) == expected  # no hidden folder, no junk, no link leading outside
    top = records["0/top.jsonl"]
    assert top["game"] == "alak" and top["finished"] and top["players"]["blue"] == "alice"


@pytest.mark.parametrize("game", GAMES)
def test_replay_json_is_the_records_replay(
    server: ServerThread, folders: dict[str, Path], game: str
) -> None:
    status, body = get(server, f"/api/replay/0/round-1/{game}.jsonl")
    assert status == 200
    expected = build_replay(random_record(folders["games"] / "x.jsonl", game, GAMES.index(game)))
    (folders["games"] / "x.jsonl").unlink()
    data = json.loads(body)
    assert data["frames"] == [f.model_dump(mode="json") for f in expected.frames]
    assert data["problems"] == [] and data["result"]["reason"] == expected.result.reason  # type: ignore[union-attr]


def test_one_ply_and_ply_validation(server: ServerThread) -> None:
    status, body = get(server, "/api/replay/0/round-1/alak.jsonl?ply=2")
    assert status == 200
    frame = json.loads(body)
    assert frame["ply"] == 2 and frame["state"]["ply"] == 2
    for bad in ("-1", "x", "99999", "1.5", ""):
        status, body = get(server, f"/api/replay/0/round-1/alak.jsonl?ply={bad}")
        assert status == 400, bad
        assert "ply must be a whole number" in body


@pytest.mark.parametrize(
    "path",
    [
        "/api/replay/0/../outside/secret.jsonl",
        "/api/replay/0/%2e%2e/outside/secret.jsonl",
        "/api/replay/0/round-1/..%2f..%2foutside/secret.jsonl",
        "/api/replay/0//etc/passwd",
        "/api/replay/0/link.jsonl",
        "/api/replay/1/secret.jsonl",
        "/api/replay/x/top.jsonl",
        "/api/replay/0/readme.txt",
        "/api/replay/0/missing.jsonl",
        "/replay/../../outside/secret.jsonl",
        "/static/../../outside/secret.jsonl",
        "/static/%2e%2e/%2e%2e/%2e%2e/outside/secret.jsonl",
    ],
)
def test_paths_outside_the_served_folders_are_refused(server: ServerThread, path: str) -> None:
    status, body = get(server, path)
    assert status in (400, 404), (path, status)
    assert SECRET not in body


def test_a_malformed_record_is_reported_not_crashed(server: ServerThread) -> None:
    status, body = get(server, "/api/replay/0/notes.jsonl")
    assert status == 422
    assert "record:1: not JSON" in body
    assert get(server, "/api/archive")[0] == 200  # still serving


def test_only_local_host_names_are_answered(server: ServerThread) -> None:
    assert get(server, "/api/archive", Host="evil.example")[0] == 400
    assert get(server, "/api/archive", Host="localhost")[0] == 200


def test_the_server_changes_nothing(server: ServerThread, folders: dict[str, Path]) -> None:
    before = (folders["games"] / "top.jsonl").read_bytes()
    url = urlsplit(server.url)
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        connection.request(method, "/api/replay/0/top.jsonl", body=b"{}")
        assert connection.getresponse().status == 405, method
        connection.close()
    assert (folders["games"] / "top.jsonl").read_bytes() == before


def test_unknown_live_games_are_404(server: ServerThread) -> None:
    assert get(server, "/api/live/nope")[0] == 404
    assert get(server, "/api/live/..%2f..")[0] == 404
    assert get(server, "/api/live/" + "a" * 65)[0] == 404


def read_event(response: http.client.HTTPResponse) -> tuple[str, dict[str, object]]:
    event, data = "", ""
    while True:
        line = response.readline().decode()
        if line.startswith("event: "):
            event = line[7:].strip()
        elif line.startswith("data: "):
            data = line[6:]
        elif line == "\n" and event:
            return event, json.loads(data)


def test_live_events_push_each_ply_as_it_happens(server: ServerThread) -> None:
    match: LiveMatch = server.call(server.hub.open_match, "a test game")
    lines = record_lines("legionnaires", 3)
    server.call(match.listener, lines[0])
    status, body = get(server, "/api/live")
    assert status == 200
    assert {"id": match.id, "plies": 0, "finished": False}.items() <= next(
        m for m in json.loads(body)["matches"] if m["id"] == match.id
    ).items()
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    connection.request("GET", f"/api/live/{match.id}/events")
    response = connection.getresponse()
    assert response.getheader("Content-Type", "").startswith("text/event-stream")
    event, snapshot = read_event(response)
    assert event == "snapshot" and snapshot["plies"] == [] and len(snapshot["frames"]) == 1  # type: ignore[arg-type]
    expected = build_replay_of(lines)
    for line, frame in zip(lines[1:-1], expected.frames[1:], strict=True):
        server.call(match.listener, line)
        event, data = read_event(response)
        assert event == "ply"
        assert data["frame"] == frame.model_dump(mode="json")
        assert isinstance(data["accepted_at"], float)
    server.call(match.listener, lines[-1])
    event, data = read_event(response)
    assert event == "result" and data["result"]["reason"] == "no-legal-move"  # type: ignore[index]
    connection.close()


def build_replay_of(lines: list[object]):  # type: ignore[no-untyped-def]
    from referee.records import GameRecord

    header, *plies, result = lines
    return build_replay(GameRecord(header=header, plies=plies, result=result))  # type: ignore[arg-type]


def start_referee(*args: str, cwd: Path) -> tuple[subprocess.Popen[str], str]:
    """Run `referee ARGS` and return it with the first address it prints."""
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", *args],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "REFEREE_NO_BROWSER": "1"},
    )  # fmt: skip
    assert process.stderr is not None
    for _ in range(5):
        found = re.search(r"(http://[\d.]+:\d+)", process.stderr.readline())
        if found:
            return process, found.group(1)
    process.kill()
    raise AssertionError("no address printed")


def test_serve_command_serves_until_ctrl_c(tmp_path: Path) -> None:
    random_record(tmp_path / "g.jsonl", "l-game", 1)
    process, url = start_referee("serve", ".", "--port", "0", cwd=tmp_path)
    try:
        with urllib.request.urlopen(url + "/api/archive", timeout=30) as response:
            assert [r["id"] for r in json.load(response)["records"]] == ["0/g.jsonl"]
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_serve_refuses_a_missing_folder_and_a_taken_port(tmp_path: Path) -> None:
    missing = subprocess.run(
        [sys.executable, "-m", "referee", "serve", "nope", "--port", "0"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert missing.returncode == 2 and "not a folder: nope" in missing.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        busy = subprocess.run(
            [sys.executable, "-m", "referee", "play", "alak", "-p1", "builtin:random",
             "-p2", "builtin:random", "--visual", "--port", port, "--record", "r.jsonl"],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert busy.returncode == 2
    assert f"cannot serve on 127.0.0.1:{port}" in busy.stderr
    assert not (tmp_path / "r.jsonl").exists()  # no game was started
