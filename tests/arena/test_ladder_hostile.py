"""Hostile text on the ladder's pages, as students would plant it: display names, a file name
with HTML and `..`, a bot's stderr with HTML, terminal escapes and bidi overrides, a record
whose player names, verdict and offending line are HTML. Every page shows it as text; the
record's JSON is served as JSON, never as a page."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from protocols.base import Reason, Side
from referee.arena.folder import Arena
from referee.arena.web.site import Site
from referee.records import Result
from tests.arena.conftest import Clock, browser, log_in
from tests.arena.ladder import START, Stderr, account, add_game, add_version, rate, record_lines

SCRIPT = "<script>alert(1)</script>"
IMAGE = '"><img src=x onerror=alert(1)>'
FILE_NAME = "<img src=x onerror=alert(1)>/../../etc/passwd.py"
STDERR = f"</pre>{SCRIPT}\x1b[2J\u202eevil\nline two"


@pytest.fixture
def hostile(arena: Arena, clock: Clock) -> dict[str, int]:
    clock.now = START
    db = arena.store.writer
    alice, bob = account(db, "alice"), account(db, "bob")
    db.execute("UPDATE accounts SET display_name = ? WHERE id = ?", (SCRIPT, alice))
    db.execute("UPDATE accounts SET display_name = ? WHERE id = ?", (IMAGE, bob))
    alices = add_version(db, alice, file_name=FILE_NAME, problem=f"build failed: {SCRIPT}")
    bobs = add_version(db, bob)
    verdict = Result(
        winner=Side.ORANGE,
        reason=Reason.ILLEGAL_MOVE,
        detail=f"blue: {IMAGE}; its stderr ends: {SCRIPT}",
        loser_line=SCRIPT,
        plies=2,
        finished_at=START,
    )
    lines = record_lines(
        ["a1", "b1"], Stderr(blue=STDERR, orange=STDERR), names=(SCRIPT, IMAGE), result=verdict
    )
    game = add_game(arena, alices, bobs, lines=lines, detail=verdict.detail)
    pending = add_game(arena, bobs, alices, state="pending")
    rate(db, alices, 1500.0, flags=f"provisional,{SCRIPT}")
    return {"alice": alice, "game": game, "pending": pending}


def pages(client: TestClient, hostile: dict[str, int]) -> dict[str, str]:
    addresses = [
        "/leaderboard",
        "/games",
        "/queue",
        f"/games/{hostile['game']}",
        f"/games/{hostile['pending']}",
        f"/students/{hostile['alice']}",
        f"/students/{hostile['alice']}/losses",
    ]
    found = {}
    for address in addresses:
        response = client.get(address)
        assert response.status_code == 200, address
        found[address] = response.text
    return found


@pytest.mark.parametrize("viewer", ["alice", "tess"])
def test_hostile_text_is_shown_as_text_on_every_page(
    site: Site, hostile: dict[str, int], viewer: str
) -> None:
    with browser(site) as client:
        log_in(client, viewer)
        found = pages(client, hostile)
        if viewer == "tess":
            found["/staff/accounts"] = client.get("/staff/accounts").text
    for address, text in found.items():
        for raw in (SCRIPT, "<img src=x", "\x1b", "\u202e", "</pre><script"):
            assert raw not in text, (address, raw)
    student = found[f"/students/{hostile['alice']}"]
    assert "&lt;img src=x onerror=alert(1)&gt;/../../etc/passwd.py" in student
    assert "build failed: &lt;script&gt;" in student
    game = found[f"/games/{hostile['game']}"]
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[2J\\u202eevil\nline two" in game
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in found["/leaderboard"]


def test_the_record_json_is_json_and_never_a_page(site: Site, hostile: dict[str, int]) -> None:
    with browser(site) as client:
        log_in(client, "alice")
        answer = client.get(f"/games/{hostile['game']}/record.json")
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["x-content-type-options"] == "nosniff"
    data = answer.json()
    assert data["header"]["players"]["blue"]["name"] == SCRIPT  # data, for the player's textContent
    assert data["result"]["loser_line"] == SCRIPT
