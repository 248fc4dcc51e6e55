"""The arena's pages as a browser, and an attacker, sees them: logins and sessions, forms
and their tokens, who sees what, and the limits every request meets."""

from __future__ import annotations

from starlette.routing import Route
from starlette.testclient import TestClient

from referee.arena import accounts
from referee.arena.folder import Arena
from referee.arena.sessions import FORM_COOKIE, SESSION_COOKIE, sessions_of
from referee.arena.web.app import BODY_LIMIT, routes
from referee.arena.web.guards import CHECKS_FORMS
from referee.arena.web.login import WRONG
from referee.arena.web.site import Site
from tests.arena.conftest import (
    ORIGIN,
    PASSWORD,
    Clock,
    browser,
    csrf_of,
    log_in,
    plant,
    session_csrf,
)


def account_id(arena: Arena, username: str) -> int:
    found = accounts.by_username(arena.store.writer, username)
    assert found is not None
    return found.id


def test_a_visitor_is_sent_to_the_login_page(client: TestClient) -> None:
    response = client.get("/account")
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/account"


def test_a_student_logs_in_and_sees_their_home(client: TestClient) -> None:
    log_in(client, "alice")
    home = client.get("/")
    assert home.status_code == 200
    assert "Your versions" in home.text and "Alice Student" in home.text
    assert "/staff" not in home.text  # no link to what a student may not see


def test_login_goes_back_to_the_page_asked_for_but_never_off_site(client: TestClient) -> None:
    token = csrf_of(client.get("/login").text)
    form = {"username": "alice", "password": PASSWORD, "csrf": token}
    assert client.post("/login", data={**form, "next": "/account"}).headers["location"] == (
        "/account"
    )
    client.cookies.clear()
    token = csrf_of(client.get("/login").text)
    hostile = client.post("/login", data={**form, "csrf": token, "next": "//evil.example/x"})
    assert hostile.headers["location"] == "/"


def test_a_failed_login_says_the_same_whatever_was_wrong(client: TestClient) -> None:
    token = csrf_of(client.get("/login").text)
    answers = [
        client.post("/login", data={"username": user, "password": password, "csrf": token})
        for user, password in [("alice", "wrong password"), ("nobody", PASSWORD)]
    ]
    assert [a.status_code for a in answers] == [400, 400]
    for answer in answers:
        assert WRONG in answer.text
        assert SESSION_COOKIE not in answer.cookies


def test_a_disabled_account_cannot_log_in(client: TestClient, arena: Arena, clock: Clock) -> None:
    accounts.set_disabled(arena.store.writer, account_id(arena, "alice"), True, clock(), None)
    token = csrf_of(client.get("/login").text)
    answer = client.post("/login", data={"username": "alice", "password": PASSWORD, "csrf": token})
    assert answer.status_code == 400 and WRONG in answer.text


def test_logout_ends_the_session_on_the_server(client: TestClient, arena: Arena) -> None:
    log_in(client, "alice")
    stolen = client.cookies[SESSION_COOKIE]
    assert client.post("/logout", data={"csrf": session_csrf(client)}).status_code == 303
    assert sessions_of(arena.store.writer, account_id(arena, "alice")) == 0
    plant(client, SESSION_COOKIE, stolen)  # a copy of the cookie, kept by a thief
    assert client.get("/account").status_code == 303


def test_a_session_id_known_before_a_login_is_worthless_after_it(site: Site, arena: Arena) -> None:
    """Session fixation: Mallory plants her own valid session cookie in Alice's browser;
    Alice logs in; the cookie Mallory knows is not Alice's session, nor valid at all."""
    with browser(site) as mallory:
        log_in(mallory, "bob")
        planted = mallory.cookies[SESSION_COOKIE]
    with browser(site) as alice:
        token = csrf_of(alice.get("/login").text)
        plant(alice, SESSION_COOKIE, planted)
        form = {"username": "alice", "password": PASSWORD, "csrf": token}
        assert alice.post("/login", data=form).status_code == 303
        assert alice.cookies[SESSION_COOKIE] != planted
        assert "Alice Student" in alice.get("/account").text
    with browser(site) as mallory:
        plant(mallory, SESSION_COOKIE, planted)
        assert mallory.get("/account").status_code == 303
    assert sessions_of(arena.store.writer, account_id(arena, "bob")) == 0


def test_a_forged_or_tampered_cookie_is_ignored(client: TestClient) -> None:
    log_in(client, "alice")
    good = client.cookies[SESSION_COOKIE]
    for forged in [good[:-2] + ("AA" if not good.endswith("AA") else "BB"), "x" * 40, ""]:
        plant(client, SESSION_COOKIE, forged)
        assert client.get("/account").status_code == 303


def test_a_session_expires(client: TestClient, clock: Clock, site: Site) -> None:
    log_in(client, "alice")
    assert client.get("/account").status_code == 200
    clock.advance(hours=site.config.accounts.session_hours + 0.01)
    assert client.get("/account").status_code == 303


def test_every_form_needs_its_session_token(client: TestClient, site: Site) -> None:
    log_in(client, "alice")
    token = session_csrf(client)
    with browser(site) as other:
        log_in(other, "bob")
        bobs = session_csrf(other)
    assert client.post("/account/token", data={}).status_code == 403
    assert client.post("/account/token", data={"csrf": "nope"}).status_code == 403
    assert client.post("/account/token", data={"csrf": bobs}).status_code == 403
    assert client.post("/account/token", data={"csrf": token}).status_code == 200


def test_a_form_from_another_site_is_refused(client: TestClient) -> None:
    log_in(client, "alice")
    token = session_csrf(client)
    evil = {"Origin": "https://evil.example"}
    assert client.post("/account/token", data={"csrf": token}, headers=evil).status_code == 403
    referred = {"Origin": "", "Referer": "https://evil.example/page"}
    del client.headers["Origin"]
    assert client.post("/account/token", data={"csrf": token}, headers=referred).status_code == 403
    # Neither header: refused too (a browser always sends one with a POST).
    assert client.post("/account/token", data={"csrf": token}).status_code == 403
    same = {"Referer": f"{ORIGIN}/account"}
    assert client.post("/account/token", data={"csrf": token}, headers=same).status_code == 200


def test_the_login_form_needs_its_form_cookie(client: TestClient) -> None:
    token = csrf_of(client.get("/login").text)
    form = {"username": "alice", "password": PASSWORD, "csrf": token}
    client.cookies.delete(FORM_COOKIE)
    assert client.post("/login", data=form).status_code == 403
    plant(client, FORM_COOKIE, "made-up")
    assert client.post("/login", data={**form, "csrf": "made-up"}).status_code == 403


def test_every_post_route_checks_its_form() -> None:
    posts = [r for r in routes() if isinstance(r, Route) and "POST" in (r.methods or ())]
    assert posts
    unchecked = [r.path for r in posts if not getattr(r.endpoint, CHECKS_FORMS, False)]
    assert not unchecked


def test_failed_logins_of_an_account_are_limited(client: TestClient, clock: Clock) -> None:
    token = csrf_of(client.get("/login").text)
    limit = 5
    for _ in range(limit):
        wrong = {"username": "alice", "password": "guess", "csrf": token}
        assert client.post("/login", data=wrong).status_code == 400
    right = {"username": "alice", "password": PASSWORD, "csrf": token}
    refused = client.post("/login", data=right)
    assert refused.status_code == 429 and "Too many failed logins" in refused.text
    assert SESSION_COOKIE not in refused.cookies
    clock.advance(minutes=16)  # the window has passed over the failures
    assert client.post("/login", data=right).status_code == 303


def test_failed_logins_from_one_address_are_limited(client: TestClient, site: Site) -> None:
    token = csrf_of(client.get("/login").text)
    for number in range(site.config.accounts.address_attempts):
        guess = {"username": f"user{number}", "password": "guess", "csrf": token}
        assert client.post("/login", data=guess).status_code == 400
    right = {"username": "alice", "password": PASSWORD, "csrf": token}
    assert client.post("/login", data=right).status_code == 429


def test_a_student_gets_a_404_for_a_staff_page(client: TestClient) -> None:
    log_in(client, "alice")
    staff = client.get("/staff")
    missing = client.get("/no-such-page")
    assert staff.status_code == missing.status_code == 404
    assert staff.text == missing.text  # nothing tells a page that exists from one that does not


def test_staff_see_every_account_escaped(site: Site) -> None:
    with browser(site) as client:
        log_in(client, "tess")
        page = client.get("/staff/accounts")
    assert page.status_code == 200
    assert "Bob &lt;b&gt;Student&lt;/b&gt;" in page.text
    assert "<b>Student</b>" not in page.text


def test_the_arena_name_is_escaped_everywhere(client: TestClient) -> None:
    page = client.get("/login").text
    assert "Test &lt;arena&gt;" in page and "Test <arena>" not in page


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    log_in(client, "alice")
    big = b"x" * (BODY_LIMIT + 1)
    responses = [
        client.get("/login"),
        client.get("/"),
        client.get("/no-such-page"),
        client.post("/account/token", content=big, headers={"Content-Type": "text/plain"}),
    ]
    for response in responses:
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "same-origin"
        assert response.headers["cache-control"] == "no-store"


def test_an_oversized_request_is_refused_before_it_is_read(client: TestClient) -> None:
    big = "x" * (BODY_LIMIT + 1)
    token = csrf_of(client.get("/login").text)
    refused = client.post("/login", data={"username": big, "password": "p", "csrf": token})
    assert refused.status_code == 413


def test_another_host_name_is_refused(client: TestClient) -> None:
    assert client.get("/login", headers={"Host": "evil.example"}).status_code == 400


def test_the_api_token_is_shown_once_and_replaced(client: TestClient) -> None:
    log_in(client, "alice")
    page = client.post("/account/token", data={"csrf": session_csrf(client)})
    token = page.text.split('<pre class="secret" id="token">')[1].split("</pre>")[0]
    assert page.headers["cache-control"] == "no-store"
    assert token not in client.get("/account").text
    bearer = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/whoami", headers=bearer).json()["username"] == "alice"
    client.post("/account/token", data={"csrf": session_csrf(client)})
    assert client.get("/api/whoami", headers=bearer).status_code == 401


def test_the_api_reads_no_cookie(client: TestClient) -> None:
    log_in(client, "alice")
    refused = client.get("/api/whoami")
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"


def test_a_disabled_account_loses_its_sessions_and_token(
    client: TestClient, arena: Arena, clock: Clock
) -> None:
    log_in(client, "alice")
    token = accounts.rotate_token(arena.store.writer, account_id(arena, "alice"))
    accounts.set_disabled(arena.store.writer, account_id(arena, "alice"), True, clock(), None)
    assert client.get("/account").status_code == 303
    assert client.get("/api/whoami", headers={"Authorization": f"Bearer {token}"}).status_code == (
        401
    )


def test_an_invite_sets_the_password_once(client: TestClient, arena: Arena, clock: Clock) -> None:
    alice = account_id(arena, "alice")
    token = accounts.issue_invite(arena.store.writer, alice, clock(), days=7)
    page = client.get(f"/invite/{token}")
    assert page.status_code == 200 and "alice" in page.text
    new = "a brand new password"
    form = {"password": new, "confirm": new, "csrf": csrf_of(page.text)}
    accepted = client.post(f"/invite/{token}", data=form)
    assert accepted.status_code == 303 and SESSION_COOKIE in accepted.cookies
    assert "Alice Student" in client.get("/account").text
    client.cookies.clear()
    assert client.get(f"/invite/{token}").status_code == 404
    page = client.get("/login")
    again = client.post(f"/invite/{token}", data={**form, "csrf": csrf_of(page.text)})
    assert again.status_code == 404
    log_in(client, "alice", new)


def test_an_expired_invite_does_not_work(client: TestClient, arena: Arena, clock: Clock) -> None:
    token = accounts.issue_invite(arena.store.writer, account_id(arena, "bob"), clock(), days=1)
    clock.advance(days=1, seconds=1)
    assert client.get(f"/invite/{token}").status_code == 404


def test_a_short_password_is_refused(client: TestClient, arena: Arena, clock: Clock) -> None:
    token = accounts.issue_invite(arena.store.writer, account_id(arena, "bob"), clock(), days=1)
    page = client.get(f"/invite/{token}")
    form = {"password": "short", "confirm": "short", "csrf": csrf_of(page.text)}
    assert client.post(f"/invite/{token}", data=form).status_code == 400
    assert client.get(f"/invite/{token}").status_code == 200  # still unspent


def test_a_new_password_ends_the_other_sessions(site: Site, arena: Arena) -> None:
    with browser(site) as laptop, browser(site) as phone:
        log_in(laptop, "alice")
        log_in(phone, "alice")
        new = "another long password"
        wrong = {"current": "nope", "password": new, "confirm": new}
        token = session_csrf(laptop)
        assert laptop.post("/account/password", data={**wrong, "csrf": token}).status_code == 400
        right = {**wrong, "current": PASSWORD, "csrf": token}
        assert laptop.post("/account/password", data=right).status_code == 200
        assert laptop.get("/account").status_code == 200
        assert phone.get("/account").status_code == 303
