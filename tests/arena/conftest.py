"""An arena made for each test (tic-tac-toe, three accounts with passwords) and its pages
driven in-process through starlette's TestClient, on a clock the test moves."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from referee.arena import accounts
from referee.arena.folder import Arena, new_arena, open_arena
from referee.arena.roster import Person
from referee.arena.rows import Role
from referee.arena.sessions import CookieSigner
from referee.arena.web.app import create_app
from referee.arena.web.site import Site

ORIGIN = "http://127.0.0.1:8000"
PASSWORD = "correct horse battery"
PEOPLE = [
    Person("alice", "Alice Student", Role.STUDENT, "alice@example.edu", 2),
    Person("bob", "Bob <b>Student</b>", Role.STUDENT, None, 3),
    Person("tess", "Tess Staff", Role.STAFF, None, 4),
]
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@dataclass
class Clock:
    """The arena's clock, moved by the test."""

    now: datetime = field(default_factory=lambda: datetime(2026, 9, 1, 12, 0, tzinfo=UTC))

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    new_arena(tmp_path / "arena", game="tic-tac-toe", name="Test <arena>")
    opened = open_arena(tmp_path / "arena")
    db = opened.store.writer
    done = accounts.import_roster(db, PEOPLE, datetime(2026, 9, 1, tzinfo=UTC))
    hashed = accounts.hash_password(PASSWORD)
    for account in done.added:
        accounts.set_password(db, account.id, hashed)
    yield opened
    opened.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def site(arena: Arena, clock: Clock) -> Site:
    return Site(arena.store, arena.config, CookieSigner(arena.secret), clock=clock)


def browser(site: Site) -> TestClient:
    """A client that behaves as a browser of the arena's own pages: the Origin of every
    request is the arena's."""
    return TestClient(
        create_app(site),
        base_url=ORIGIN,
        backend="trio",
        follow_redirects=False,
        headers={"Origin": ORIGIN},
    )


@pytest.fixture
def client(site: Site) -> Iterator[TestClient]:
    with browser(site) as client:
        yield client


def csrf_of(html: str) -> str:
    found = _CSRF.search(html)
    assert found is not None, "no form token on the page"
    return found.group(1)


def log_in(client: TestClient, username: str, password: str = PASSWORD) -> None:
    """Log in through the login page, as a person would; the client keeps the cookie."""
    token = csrf_of(client.get("/login").text)
    done = client.post(
        "/login", data={"username": username, "password": password, "csrf": token, "next": "/"}
    )
    assert done.status_code == 303, done.text


def plant(client: TestClient, name: str, value: str) -> None:
    """Put a cookie in the client's jar as the arena would have set it (replacing its own)."""
    client.cookies.delete(name)
    client.cookies.set(name, value, domain="127.0.0.1", path="/")


def session_csrf(client: TestClient) -> str:
    """The CSRF token of the signed-in session (from a page's forms)."""
    return csrf_of(client.get("/account").text)
