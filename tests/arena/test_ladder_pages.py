"""The ladder's pages as people see them: the leaderboard, a student's page and their losses, a
game's page and record, the queue; and the pages that refresh themselves for a 304 when
nothing changed."""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta

import pytest
from starlette.testclient import TestClient

from referee.arena.folder import Arena
from referee.arena.web.site import Site
from tests.arena.conftest import Clock, browser, log_in
from tests.arena.ladder import START, add_game, add_version, rate
from tests.arena.ladder_fixture import (
    ALICE_LAST_WORDS,
    ALICE_STDERR,
    BOB_STDERR,
    Ladder,
    make_ladder,
)


@pytest.fixture
def ladder(arena: Arena, clock: Clock) -> Ladder:
    clock.now = START
    return make_ladder(arena)


def cells(page: str) -> list[list[str]]:
    """The text of each cell of each body row of the first table of a page."""
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    return [
        [
            html.unescape(re.sub(r"<[^>]+>|\s+", " ", c)).strip()
            for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)
        ]
        for r in rows
    ]


def test_the_leaderboard_shows_ranks_intervals_versions_and_trends(
    client: TestClient, ladder: Ladder
) -> None:
    log_in(client, "alice")
    page = client.get("/leaderboard")
    assert page.status_code == 200
    rows = cells(page.text)
    assert rows[0][:8] == ["1", "Alice Student", "v2", "1550", "1500 – 1600", "12", "6", "+50"]
    # bob: one-sided (an upper bound only), provisional and not ranked; carol not rated yet.
    assert rows[1][:5] == ["–", "Bob <b>Student</b>", "v1", "1450", "≤ 1500"]
    assert "provisional" in rows[1][8] and "winless" in rows[1][8]
    assert rows[2][0] == "–" and rows[2][3] == "–" and "not rated yet" in rows[2][8]
    assert "Bob &lt;b&gt;Student&lt;/b&gt;" in page.text
    # Her own row links to her page; no one else's does.
    assert f'href="/students/{ladder.alice}"' in page.text
    assert f'href="/students/{ladder.bob}"' not in page.text


def test_a_student_finds_their_own_line_and_staff_every_link(site: Site, ladder: Ladder) -> None:
    """The table is kept once per fit and role: the staff's (a link on every name) never
    reaches a student, and each student's own line above it is theirs alone."""
    with browser(site) as tess:
        log_in(tess, "tess")
        staffs = tess.get("/leaderboard").text
    with browser(site) as bob:
        log_in(bob, "bob")
        bobs = bob.get("/leaderboard").text
    with browser(site) as alice:
        log_in(alice, "alice")
        alices = alice.get("/leaderboard").text
    for student in (ladder.alice, ladder.bob, ladder.carol):
        assert f'<a href="/students/{student}">' in staffs
        assert f'<tr id="student-{student}">' in bobs
    assert "Your version" not in staffs
    assert "Your version v2: rank 1, rating 1550" in alices
    assert f'<a href="#student-{ladder.alice}">your row</a>' in alices
    assert "Your version v1: rating 1450" in bobs  # provisional: no rank
    assert f'href="/students/{ladder.alice}"' not in bobs
    assert f'href="/students/{ladder.carol}"' not in alices + bobs


def test_a_page_that_refreshes_itself_gets_a_304_until_something_changes(
    client: TestClient, ladder: Ladder, arena: Arena
) -> None:
    log_in(client, "alice")
    for address in ("/leaderboard", "/queue"):
        first = client.get(address)
        tag = first.headers["etag"]
        again = client.get(address, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.content == b""
    rate(arena.store.writer, ladder.carol_v1, 1700.0, rank=1, at=START)
    changed = client.get("/leaderboard", headers={"If-None-Match": first.headers["etag"]})
    assert changed.status_code == 200 and "1700" in changed.text
    assert 'data-refresh="' in changed.text and "/static/arena-refresh.js" in changed.text
    assert client.get("/static/arena-refresh.js").status_code == 200


def test_a_students_page_shows_versions_rating_history_and_games(
    client: TestClient, ladder: Ladder
) -> None:
    log_in(client, "alice")
    page = client.get(f"/students/{ladder.alice}")
    assert page.status_code == 200
    assert f'<a href="/versions/{ladder.alice_v2}">v2</a>' in page.text
    assert f'<a href="/versions/{ladder.alice_v1}">v1</a>' in page.text
    assert "superseded" in page.text and "active" in page.text
    chart = page.text.split('<svg class="rating-chart"', 1)[1].split("</svg>", 1)[0]
    assert chart.count("<polyline") == 2  # one line per version
    assert 'data-version="1"' in chart and 'data-version="2"' in chart
    assert '<text class="tick y"' in chart and '<text class="tick x"' in chart  # both axes
    assert "<script" not in chart and "style=" not in chart
    games = [row[0] for row in cells(page.text.split("<h2>Games</h2>", 1)[1])]
    expected = [ladder.pending, ladder.alice_won, ladder.alice_crashed, ladder.alice_lost]
    assert games == [f"#{g}" for g in expected]
    assert f"#{ladder.others}" not in page.text


def test_a_students_games_are_paged_by_cursor(
    client: TestClient, arena: Arena, ladder: Ladder
) -> None:
    for _ in range(30):
        add_game(arena, ladder.alice_v2, ladder.bob_v1)
    log_in(client, "alice")
    seen: list[str] = []
    address = f"/students/{ladder.alice}"
    while address:
        page = client.get(address)
        seen += [row[0] for row in cells(page.text.split("<h2>Games</h2>", 1)[1])]
        after = re.search(r'rel="next" href="\?before=(\d+)"', page.text)
        address = f"/students/{ladder.alice}?before={after.group(1)}" if after else ""
    assert len(seen) == len(set(seen)) == 34
    assert client.get(f"/students/{ladder.alice}?before=-1").status_code == 400
    assert client.get(f"/students/{ladder.alice}?before=9" + "9" * 30).status_code == 400


def test_the_losses_page_shows_each_final_position_and_her_own_stderr(
    client: TestClient, ladder: Ladder
) -> None:
    log_in(client, "alice")
    page = client.get(f"/students/{ladder.alice}/losses")
    assert page.status_code == 200
    shown = re.findall(r'<a href="/games/(\d+)#ply=(\d+)">', page.text)
    assert shown == [(str(ladder.alice_crashed), "2"), (str(ladder.alice_lost), "6")]
    assert page.text.count('<pre class="board-picture">') == 2
    # The final position of the game lost by the rules: orange's three in column b.
    lost = page.text.split(f"Game {ladder.alice_lost}</a>", 1)[1]
    board = lost.split('<pre class="board-picture">', 1)[1].split("</pre>", 1)[0]
    assert board.count(" O </span>") == 3 and board.count(" X </span>") == 3
    assert page.text.count(ALICE_STDERR) == 2
    assert BOB_STDERR not in page.text


def test_a_game_page_shows_the_viewers_own_stderr_only(site: Site, ladder: Ladder) -> None:
    with browser(site) as alice:
        log_in(alice, "alice")
        mine = alice.get(f"/games/{ladder.alice_crashed}").text
    with browser(site) as bob:
        log_in(bob, "bob")
        his = bob.get(f"/games/{ladder.alice_crashed}").text
    with browser(site) as tess:
        log_in(tess, "tess")
        staff = tess.get(f"/games/{ladder.alice_crashed}").text
    assert ALICE_STDERR in mine and ALICE_LAST_WORDS in mine and BOB_STDERR not in mine
    assert BOB_STDERR in his and ALICE_STDERR not in his
    assert ALICE_LAST_WORDS not in his and "its stderr is shown to its author" in his
    assert all(secret in staff for secret in (ALICE_STDERR, BOB_STDERR, ALICE_LAST_WORDS))
    # The replay is the web view's player with the game's renderer.
    for script in ("/player/player.js", "/player/renderer.js", "/static/arena-game.js"):
        assert f'<script src="{script}"></script>' in mine
    assert f'data-record="/games/{ladder.alice_crashed}/record.json"' in mine


def test_the_record_json_carries_only_the_viewers_own_private_parts(
    site: Site, ladder: Ladder
) -> None:
    address = f"/games/{ladder.alice_crashed}/record.json"
    with browser(site) as alice:
        log_in(alice, "alice")
        mine = alice.get(address)
    with browser(site) as bob:
        log_in(bob, "bob")
        his = bob.get(address).json()
    with browser(site) as tess:
        log_in(tess, "tess")
        staff = tess.get(address).json()
    assert mine.headers["content-type"] == "application/json"
    data = mine.json()
    # alice played orange here.
    assert data["result"]["bots"]["orange"]["stderr_tail"] == ALICE_STDERR
    assert data["result"]["bots"]["blue"]["stderr_tail"] == ""
    assert data["header"]["players"]["orange"]["command"] == "python3 orange_secret_bot.py"
    assert data["header"]["players"]["blue"]["command"] == ""
    assert ALICE_LAST_WORDS in data["result"]["detail"]
    assert data["chain"] is None  # a hash of what she may not see would confirm a guess of it
    assert len(data["frames"]) == 3 and data["plies"][0]["move"] == "a1"
    assert his["result"]["bots"]["blue"]["stderr_tail"] == BOB_STDERR
    assert ALICE_LAST_WORDS not in json.dumps(his) and ALICE_STDERR not in json.dumps(his)
    assert staff["chain"] and ALICE_STDERR in json.dumps(staff) and BOB_STDERR in json.dumps(staff)


def test_a_game_without_a_record_yet_says_where_it_is(client: TestClient, ladder: Ladder) -> None:
    log_in(client, "alice")
    assert "waits in the queue" in client.get(f"/games/{ladder.pending}").text
    assert "being played" in client.get(f"/games/{ladder.running}").text
    assert client.get(f"/games/{ladder.pending}/record.json").status_code == 404
    assert client.get(f"/games/{ladder.running}/live").status_code == 404  # nobody feeds it


def test_the_queue_lists_games_playing_and_waiting(client: TestClient, ladder: Ladder) -> None:
    log_in(client, "bob")
    page = client.get("/queue").text
    playing, waiting = page.split("<h2>Waiting", 1)
    assert f'href="/games/{ladder.running}"' in playing
    assert f'href="/games/{ladder.pending}"' in waiting
    assert f'href="/games/{ladder.alice_lost}"' not in page


def test_the_games_list_is_paged_and_shows_finished_games(
    client: TestClient, ladder: Ladder
) -> None:
    log_in(client, "carol")
    page = client.get("/games").text
    found = [row[0] for row in cells(page)]
    finished = [ladder.others, ladder.alice_won, ladder.alice_crashed, ladder.alice_lost]
    assert found == [f"#{g}" for g in finished]


def test_the_player_and_the_games_renderer_are_served(client: TestClient) -> None:
    renderer = client.get("/player/renderer.js")
    assert renderer.status_code == 200 and 'R.renderers["tic-tac-toe"]' in renderer.text
    assert renderer.headers["content-type"].startswith("text/javascript")
    assert "Referee.startPlayer" in client.get("/player/player.js").text
    assert ".rp-board" in client.get("/player/style.css").text
    assert "EventSource" in client.get("/static/arena-game.js").text


def test_the_trend_follows_the_clock(
    client: TestClient, clock: Clock, ladder: Ladder, arena: Arena
) -> None:
    clock.advance(hours=30)  # the rating of a day ago is now the latest
    log_in(client, "alice")
    row = cells(client.get("/leaderboard").text)[0]
    assert row[1] == "Alice Student" and row[7] == "+0"
    rate(arena.store.writer, ladder.alice_v2, 1530.0, rank=1, at=START + timedelta(hours=30))
    assert cells(client.get("/leaderboard").text)[0][7] == "-20"
    add_version(arena.store.writer, ladder.carol, status="received")  # in the checks
    assert len(cells(client.get("/leaderboard").text)) == 3


def test_a_game_page_shows_the_attempt_the_store_numbers(
    client: TestClient, arena: Arena, ladder: Ladder
) -> None:
    """The store counts a game's attempts from 1: a game played once says attempt 1."""
    log_in(client, "tess")
    db = arena.store.writer
    db.execute("UPDATE games SET attempt = 1 WHERE id = ?", (ladder.alice_lost,))
    db.execute("UPDATE games SET attempt = 2 WHERE id = ?", (ladder.others,))
    db.commit()
    first = client.get(f"/games/{ladder.alice_lost}").text
    assert "ladder, attempt 1<" in first and "attempt 2" not in first
    assert "ladder, attempt 2<" in client.get(f"/games/{ladder.others}").text
