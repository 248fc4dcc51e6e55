"""The staff's page and actions: pause and resume, freeze, release grades, re-run a game,
disqualify a version, accounts (disable, enable, a new invite); each in the audit log, which is
paged; each refused to a student (404), to a form without the session's token and to another
site's form (403), with nothing changed."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from referee.arena import accounts, audit
from referee.arena.controls import ControlError, disqualify_version, rerun_game
from referee.arena.finalists import pin
from referee.arena.folder import Arena
from referee.arena.game_queries import game_view
from referee.arena.ladder_store import take_next
from referee.arena.rows import GameKind, GameState, VersionStatus
from referee.arena.staff_actions import FROZEN, GRADES_RELEASED, PAUSED, flags, switch
from referee.arena.web.app import routes
from referee.arena.web.site import Site
from tests.arena.conftest import Clock, browser, log_in, session_csrf
from tests.arena.ladder import START, add_game
from tests.arena.ladder_fixture import Ladder, make_ladder


@pytest.fixture
def ladder(arena: Arena, clock: Clock) -> Ladder:
    clock.now = START
    return make_ladder(arena)


@pytest.fixture
def staff(site: Site) -> Iterator[TestClient]:
    with browser(site) as client:
        log_in(client, "tess")
        yield client


def staff_forms(ladder: Ladder) -> dict[str, dict[str, str]]:
    """A valid form for every staff action."""
    return {
        "/staff/switch": {"switch": "paused", "on": "1"},
        "/staff/rerun": {"game": str(ladder.alice_lost)},
        "/staff/disqualify": {"version": str(ladder.bob_v1), "reason": "copied code"},
        "/staff/accounts/disable": {"account": str(ladder.carol), "disabled": "1"},
        "/staff/accounts/invite": {"account": str(ladder.carol)},
    }


def test_every_staff_action_is_tried_by_these_tests(ladder: Ladder) -> None:
    posts = {r.path for r in routes() if isinstance(r, Route) and "POST" in (r.methods or ())}
    assert {path for path in posts if path.startswith("/staff")} == set(staff_forms(ladder))


def changes(arena: Arena) -> tuple[object, ...]:
    """Everything a staff action could change."""
    db = arena.store.writer
    return (
        flags(db),
        db.execute("SELECT id, state, kind FROM games ORDER BY id").fetchall(),
        db.execute("SELECT id, status FROM versions ORDER BY id").fetchall(),
        db.execute("SELECT id, disabled, invite_hash FROM accounts ORDER BY id").fetchall(),
        db.execute("SELECT count(*) FROM audit").fetchone(),
    )


def test_a_student_gets_a_404_for_every_staff_page_and_action(
    site: Site, arena: Arena, ladder: Ladder
) -> None:
    before = changes(arena)
    with browser(site) as client:
        log_in(client, "alice")
        missing = client.get("/no-such-page").text
        token = session_csrf(client)  # her own valid token: the role is what refuses her
        for address in ("/staff", "/staff/accounts", "/staff/audit"):
            answer = client.get(address)
            assert (answer.status_code, answer.text) == (404, missing), address
        for address, form in staff_forms(ladder).items():
            answer = client.post(address, data={**form, "csrf": token})
            assert (answer.status_code, answer.text) == (404, missing), address
    assert changes(arena) == before


def test_every_staff_action_needs_the_sessions_token_and_the_arenas_origin(
    site: Site, arena: Arena, ladder: Ladder, staff: TestClient
) -> None:
    before = changes(arena)
    with browser(site) as other:
        log_in(other, "alice")
        someone_elses = session_csrf(other)
    token = session_csrf(staff)
    for address, form in staff_forms(ladder).items():
        for forged in ({}, {"csrf": "forged"}, {"csrf": someone_elses}):
            assert staff.post(address, data={**form, **forged}).status_code == 403, address
        evil = {"Origin": "https://evil.example"}
        answer = staff.post(address, data={**form, "csrf": token}, headers=evil)
        assert answer.status_code == 403, address
        assert staff.get(address).status_code == 405  # no action is a GET
    assert changes(arena) == before


def test_pause_freeze_and_grades_switch_on_and_off_in_the_audit_log(
    arena: Arena, ladder: Ladder, staff: TestClient
) -> None:
    token = session_csrf(staff)
    for key in (PAUSED, FROZEN, GRADES_RELEASED):
        for on in ("1", "0", "0"):
            done = staff.post("/staff/switch", data={"switch": key, "on": on, "csrf": token})
            assert done.status_code == 303 and done.headers["location"] == "/staff"
            assert getattr(flags(arena.store.writer), key) is (on == "1")
    actions = [entry.action for entry in reversed(audit.entries(arena.store.writer))]
    expected = ["pause", "resume", "freeze", "unfreeze", "release-grades", "withdraw-grades"]
    assert actions[-6:] == expected  # switching off what is off is not an action
    tess = accounts.by_username(arena.store.writer, "tess")
    assert tess is not None
    assert {e.account_id for e in audit.entries(arena.store.writer)[:6]} == {tess.id}
    refused = staff.post("/staff/switch", data={"switch": "deadline", "on": "1", "csrf": token})
    assert refused.status_code == 400


def test_the_staff_page_shows_the_switches_and_the_queue(
    arena: Arena, ladder: Ladder, staff: TestClient
) -> None:
    page = staff.get("/staff").text
    assert "Pause scheduling" in page and "Freeze uploads" in page and "Release grades" in page
    assert "1 playing, 1 waiting, 4 played, 0 void" in page
    staff.post("/staff/switch", data={"switch": "paused", "on": "1", "csrf": session_csrf(staff)})
    page = staff.get("/staff").text
    assert "Resume scheduling" in page and "<strong>paused</strong>" in page
    assert "paused by the staff" in staff.get("/queue").text


def test_a_game_is_rerun_by_the_same_versions_and_its_old_result_is_void(
    arena: Arena, ladder: Ladder, staff: TestClient
) -> None:
    done = staff.post(
        "/staff/rerun", data={"game": str(ladder.alice_lost), "csrf": session_csrf(staff)}
    )
    assert done.status_code == 303
    new_id = int(done.headers["location"].rsplit("/", 1)[1])
    db = arena.store.writer
    old, new = game_view(db, ladder.alice_lost), game_view(db, new_id)
    assert old is not None and new is not None
    assert old.game.state is GameState.VOID and f"as game {new_id}" in (old.game.detail or "")
    assert old.game.winner == "orange" and old.game.record  # kept, no longer counted
    assert new.game.kind is GameKind.RERUN and new.game.state is GameState.PENDING
    assert (new.game.blue, new.game.orange, new.game.seed) == (
        old.game.blue,
        old.game.orange,
        old.game.seed,
    )
    assert audit.entries(db)[0].action == "rerun-game"
    again = staff.post("/staff/rerun", data={"game": str(new_id), "csrf": session_csrf(staff)})
    assert again.status_code == 409 and "only a finished game is re-run" in again.text
    for bad in ("", "x", "-1", "99999999999999999999999"):
        form = {"game": bad, "csrf": session_csrf(staff)}
        assert staff.post("/staff/rerun", data=form).status_code == 400
    missing = staff.post("/staff/rerun", data={"game": "999", "csrf": session_csrf(staff)})
    assert missing.status_code == 409 and "no game 999" in missing.text


def test_rerun_keeps_the_opening(arena: Arena, ladder: Ladder, clock: Clock) -> None:
    db = arena.store.writer
    db.execute('UPDATE games SET opening = \'["a1", "b2"]\' WHERE id = ?', (ladder.others,))
    new_id = rerun_game(db, clock(), None, ladder.others)
    new = game_view(db, new_id)
    assert new is not None and new.game.opening == ("a1", "b2")


def test_a_disqualified_version_plays_no_more_and_leaves_the_board(
    arena: Arena, ladder: Ladder, staff: TestClient
) -> None:
    token = session_csrf(staff)
    form = {"version": str(ladder.alice_v2), "reason": "shared code <b>x</b>", "csrf": token}
    assert staff.post("/staff/disqualify", data=form).status_code == 303
    db = arena.store.writer
    status = db.execute("SELECT status FROM versions WHERE id = ?", (ladder.alice_v2,)).fetchone()
    assert status[0] == VersionStatus.DISQUALIFIED.value
    pending = game_view(db, ladder.pending)
    played = game_view(db, ladder.alice_lost)
    assert pending is not None and pending.game.state is GameState.VOID
    assert played is not None and played.game.state is GameState.DONE  # its games stand
    entry = audit.entries(db)[0]
    assert (entry.action, entry.detail) == ("disqualify-version", "shared code <b>x</b>")
    assert "Alice Student" not in staff.get("/leaderboard").text
    log = staff.get("/staff/audit").text
    assert "shared code &lt;b&gt;x&lt;/b&gt;" in log and "<b>x</b>" not in log
    twice = staff.post("/staff/disqualify", data=form)
    assert twice.status_code == 409 and "disqualified already" in twice.text
    rerun = staff.post("/staff/rerun", data={"game": str(ladder.alice_lost), "csrf": token})
    assert rerun.status_code == 409 and "one of its versions is disqualified" in rerun.text
    no_reason = {**form, "version": str(ladder.bob_v1), "reason": "  "}
    assert staff.post("/staff/disqualify", data=no_reason).status_code == 400


def test_accounts_are_disabled_enabled_and_invited(
    site: Site, arena: Arena, ladder: Ladder, staff: TestClient
) -> None:
    with browser(site) as carol:
        log_in(carol, "carol")
        token = session_csrf(staff)
        form = {"account": str(ladder.carol), "disabled": "1", "csrf": token}
        assert staff.post("/staff/accounts/disable", data=form).status_code == 303
        assert carol.get("/leaderboard").status_code == 303  # her session ended
    listing = staff.get("/staff/accounts").text
    assert "disabled" in listing and f'href="/students/{ladder.carol}"' in listing
    refused = staff.post(
        "/staff/accounts/invite", data={"account": str(ladder.carol), "csrf": token}
    )
    assert refused.status_code == 409 and "enable it first" in refused.text
    staff.post("/staff/accounts/disable", data={**form, "disabled": "0"})
    shown = staff.post("/staff/accounts/invite", data={"account": str(ladder.carol), "csrf": token})
    assert shown.status_code == 200 and shown.headers["cache-control"] == "no-store"
    link = re.search(r'<pre class="secret" id="invite">([^<]+)</pre>', shown.text)
    assert link is not None and "/invite/" in link.group(1)
    path = link.group(1).split("8000", 1)[1]
    with browser(site) as anyone:
        assert anyone.get(path).status_code == 200  # the link works, once, for carol
    assert link.group(1) not in staff.get("/staff/accounts").text  # shown that once
    actions = [e.action for e in audit.entries(arena.store.writer)[:3]]
    assert actions == ["issue-invites", "enable", "disable"]
    tess = accounts.by_username(arena.store.writer, "tess")
    assert tess is not None
    myself = {"account": str(tess.id), "disabled": "1", "csrf": token}
    assert staff.post("/staff/accounts/disable", data=myself).status_code == 409


def test_the_audit_log_is_paged_newest_first(
    arena: Arena, ladder: Ladder, staff: TestClient, clock: Clock
) -> None:
    db = arena.store.writer
    for number in range(60):
        switch(db, clock(), None, PAUSED, number % 2 == 0)
    seen: list[int] = []
    address = "/staff/audit"
    while address:
        page = staff.get(address).text
        seen += [int(n) for n in re.findall(r"<tr><td>(\d+)</td>", page)]
        after = re.search(r'rel="next" href="\?before=(\d+)"', page)
        address = f"/staff/audit?before={after.group(1)}" if after else ""
    total = db.execute("SELECT count(*) FROM audit").fetchone()[0]
    assert seen == sorted(seen, reverse=True) and len(set(seen)) == total


def test_the_store_functions_refuse_what_cannot_be_done(
    arena: Arena, ladder: Ladder, clock: Clock
) -> None:
    db = arena.store.writer
    assert switch(db, clock(), None, FROZEN, True) is True
    assert switch(db, clock(), None, FROZEN, True) is False
    with pytest.raises(ControlError, match="is pending: only a finished game"):
        rerun_game(db, clock(), None, ladder.pending)
    with pytest.raises(ControlError, match="no version 999"):
        disqualify_version(db, clock(), None, 999, "x")
    running = add_game(arena, ladder.bob_v1, ladder.carol_v1, state="running")
    with pytest.raises(ControlError, match="only a finished game"):
        rerun_game(db, clock(), None, running)


def test_a_rerun_from_the_staff_page_is_the_ladders_next_game(
    arena: Arena, ladder: Ladder, staff: TestClient, clock: Clock
) -> None:
    done = staff.post(
        "/staff/rerun", data={"game": str(ladder.alice_lost), "csrf": session_csrf(staff)}
    )
    new_id = int(done.headers["location"].rsplit("/", 1)[1])
    db = arena.store.writer
    new = game_view(db, new_id)
    assert new is not None and new.game.replaces == ladder.alice_lost
    # Waiting beside an older game, the re-run is the one the ladder plays first.
    taken = take_next(db, clock())
    assert taken is not None and taken.id == new_id


def test_after_the_pin_no_game_is_rerun_nor_version_disqualified(
    site: Site, arena: Arena, ladder: Ladder, staff: TestClient, clock: Clock
) -> None:
    db = arena.store.writer
    assert pin(db, clock(), None)
    before = changes(arena)
    page = staff.get("/staff").text
    assert 'id="rerun-closed"' in page and 'action="/staff/rerun"' not in page
    assert 'id="disqualify-closed"' in page and 'action="/staff/disqualify"' not in page
    game_page = staff.get(f"/games/{ladder.alice_lost}").text
    assert 'action="/staff/rerun"' not in game_page
    alice = accounts.by_username(db, "alice")
    assert alice is not None
    assert 'action="/staff/disqualify"' not in staff.get(f"/students/{alice.id}").text
    token = session_csrf(staff)
    rerun = staff.post("/staff/rerun", data={"game": str(ladder.alice_lost), "csrf": token})
    assert rerun.status_code == 409 and "the final&#39;s versions are pinned" in rerun.text
    form = {"version": str(ladder.alice_v2), "reason": "copied", "csrf": token}
    refused = staff.post("/staff/disqualify", data=form)
    assert refused.status_code == 409 and "plays them as pinned" in refused.text
    assert changes(arena) == before  # the game still counts; nothing queued, nothing audited


def test_after_the_deadline_no_game_is_rerun(arena: Arena, ladder: Ladder, clock: Clock) -> None:
    db = arena.store.writer
    with pytest.raises(ControlError, match=r"the deadline .* has passed"):
        rerun_game(db, clock(), None, ladder.alice_lost, deadline=clock())
    game = game_view(db, ladder.alice_lost)
    assert game is not None and game.game.state is GameState.DONE


def test_a_rerun_withdrawn_at_the_pin_gives_its_game_back(
    arena: Arena, ladder: Ladder, clock: Clock
) -> None:
    db = arena.store.writer
    switch(db, clock(), None, PAUSED, True)  # the ladder paused: the pin withdraws what waits
    new_id = rerun_game(db, clock(), None, ladder.alice_lost)
    assert pin(db, clock(), None)
    old, new = game_view(db, ladder.alice_lost), game_view(db, new_id)
    assert old is not None and new is not None
    assert new.game.state is GameState.VOID
    assert old.game.state is GameState.DONE and "counts again" in (old.game.detail or "")
