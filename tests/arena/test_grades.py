"""The grades as people reach them: hidden from students until the staff release them, then each
student's own and nobody else's, whatever the URL (tried as another student would); the staff's
table and CSV with the version each grade was earned with, safe in a spreadsheet; release and
hide audited."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest
from starlette.testclient import TestClient

from referee.arena import accounts
from referee.arena.folder import Arena
from referee.arena.grades import Worked, own_grade, release, released, save
from referee.arena.rows import Grade
from referee.arena.staff_actions import flags
from referee.arena.store import set_state, stamp, transaction
from tests.arena.conftest import log_in, session_csrf
from tests.arena.final_kit import FIRST_FREE, add_version, bot

NOW = datetime(2026, 12, 17, 9, 0, tzinfo=UTC)
SHOWN = '<dd id="grade">{}</dd>'


def account_id(arena: Arena, username: str) -> int:
    found = accounts.by_username(arena.store.writer, username)
    assert found is not None
    return found.id


@pytest.fixture
def graded(arena: Arena) -> Arena:
    """Alice earned an A with her second version, Bob a C with his first (hidden so far)."""
    add_version(arena, "alice", bot(FIRST_FREE))
    alice = add_version(arena, "alice", bot(FIRST_FREE))
    bob = add_version(arena, "bob", bot(FIRST_FREE))
    when = stamp(NOW)
    grades = [
        Grade(account_id(arena, "alice"), alice, 91.0, "A", when, 1, 6, 0),
        Grade(account_id(arena, "bob"), bob, 47.5, "C", when, 2, 6, 1),
    ]
    save(arena.store.writer, Worked(grades, 0), NOW, None)
    return arena


def test_grades_are_hidden_from_students_until_released(graded: Arena, client: TestClient) -> None:
    log_in(client, "alice")
    page = client.get("/grades")
    assert page.status_code == 200
    assert "The grades are not released yet." in page.text
    assert 'id="grade"' not in page.text and "91" not in page.text
    assert own_grade(graded.store.writer, account_id(graded, "alice")) is None


def test_once_released_each_student_sees_their_own_and_no_other(
    graded: Arena, client: TestClient
) -> None:
    release(graded.store.writer, NOW, account_id(graded, "tess"), True)
    log_in(client, "alice")
    mine = client.get("/grades").text
    assert SHOWN.format("A") in mine and "91" in mine and "version 2" in mine
    assert "47.5" not in mine and SHOWN.format("C") not in mine
    client.cookies.clear()
    log_in(client, "bob")
    theirs = client.get("/grades").text
    assert SHOWN.format("C") in theirs and "47.5" in theirs and "version 1" in theirs
    assert "91" not in theirs and SHOWN.format("A") not in theirs


def test_a_student_cannot_reach_another_s_grade_by_any_url(
    graded: Arena, client: TestClient
) -> None:
    release(graded.store.writer, NOW, None, True)
    bob = account_id(graded, "bob")
    log_in(client, "alice")
    for url in ("/staff/grades", "/staff/grades.csv", f"/grades/{bob}", "/grades/bob"):
        answer = client.get(url)
        assert answer.status_code == 404, url
        assert "47.5" not in answer.text and "Bob" not in answer.text
    for query in (f"?account={bob}", "?username=bob", f"?account_id={bob}&id={bob}"):
        answer = client.get("/grades" + query)  # the query is not read: always one's own
        assert SHOWN.format("A") in answer.text and "47.5" not in answer.text
    forged = client.post("/grades", data={"account": str(bob)})
    assert forged.status_code == 405 and "47.5" not in forged.text


def test_grades_hidden_again_are_hidden(graded: Arena, client: TestClient) -> None:
    db = graded.store.writer
    release(db, NOW, None, True)
    release(db, NOW, None, False)
    log_in(client, "bob")
    assert "The grades are not released yet." in client.get("/grades").text
    actions = [r[0] for r in db.execute("SELECT action FROM audit ORDER BY id")]
    assert actions[-3:] == ["compute-grades", "release-grades", "withdraw-grades"]


def test_staff_see_every_grade_and_download_the_csv(graded: Arena, client: TestClient) -> None:
    with transaction(graded.store.writer) as db:
        db.execute(
            "UPDATE accounts SET display_name = ? WHERE username = 'alice'",
            ('=HYPERLINK("http://evil.example","x")',),
        )
    log_in(client, "tess")
    assert client.get("/grades").headers["location"] == "/staff/grades"
    table = client.get("/staff/grades").text
    assert "hidden" in table and "Bob &lt;b&gt;Student&lt;/b&gt;" in table
    assert "<b>Student</b>" not in table
    download = client.get("/staff/grades.csv")
    assert download.status_code == 200
    assert download.headers["content-type"].startswith("text/csv")
    assert download.headers["content-disposition"] == 'attachment; filename="grades.csv"'
    rows = list(csv.DictReader(io.StringIO(download.text)))
    assert [(r["username"], r["version"], r["points"], r["grade"]) for r in rows] == [
        ("alice", "2", "91", "A"),
        ("bob", "1", "47.5", "C"),
    ]
    assert rows[0]["name"] == '\'=HYPERLINK("http://evil.example","x")'  # not a formula
    assert rows[1]["name"] == "Bob <b>Student</b>"  # a CSV cell is text, not HTML


def test_staff_without_grades_are_told_when_they_come(arena: Arena, client: TestClient) -> None:
    log_in(client, "tess")
    assert "No grades yet" in client.get("/staff/grades").text


def test_the_staff_page_and_the_command_agree_on_the_grades_and_the_freeze(
    graded: Arena, client: TestClient
) -> None:
    db = graded.store.writer
    release(db, NOW, None, True)  # as `referee arena grades --release` does
    set_state(db, "frozen", "yes")  # a flag set by hand in the store
    assert flags(db).grades_released and flags(db).frozen
    log_in(client, "tess")
    page = client.get("/staff").text
    assert "<strong>released</strong>" in page
    switched = client.post(
        "/staff/switch",
        data={"switch": "grades_released", "on": "0", "csrf": session_csrf(client)},
    )
    assert switched.status_code == 303
    assert not released(db)
