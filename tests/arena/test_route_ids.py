"""Every route of the arena against ids no store holds: too large for SQLite, zero, not a
number. Each answers 404 (or 400) for a student, for staff and through the API, never a 500."""

from __future__ import annotations

import logging
import re

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from referee.arena import accounts
from referee.arena.folder import Arena
from referee.arena.server import LOGGERS, log_to_file, web_config
from referee.arena.web.app import create_app, routes
from referee.arena.web.site import Site
from tests.arena.conftest import ORIGIN, log_in, session_csrf

BAD_IDS = [
    "99999999999999999999",
    "9223372036854775808",  # 2**63: one past SQLite's largest integer
    str(2**64),
    "0",
    "00",
    "-1",
    "abc",
    "1e3",
    "%D9%A3",  # an Arabic-Indic digit
]
PARAM = re.compile(r"\{[^}]+\}")
FORM_IDS = {"/staff/rerun": "game", "/staff/disqualify": "version"}


def paths_with_ids() -> list[str]:
    """The GET routes whose path takes a parameter."""
    return [
        r.path
        for r in routes()
        if isinstance(r, Route) and "GET" in (r.methods or ()) and PARAM.search(r.path)
    ]


def get_paths() -> list[str]:
    return [r.path for r in routes() if isinstance(r, Route) and "GET" in (r.methods or ())]


def quiet_client(site: Site) -> TestClient:
    """A browser whose server errors come back as 500s rather than raised in the test."""
    return TestClient(
        create_app(site),
        base_url=ORIGIN,
        backend="trio",
        follow_redirects=False,
        headers={"Origin": ORIGIN},
        raise_server_exceptions=False,
    )


def test_there_are_routes_with_ids_to_walk() -> None:
    found = paths_with_ids()
    assert "/versions/{version_id:int}" in found and "/games/{id:int}" in found


@pytest.mark.parametrize("username", ["alice", "tess"])
def test_every_path_id_out_of_range_or_malformed_is_a_404(site: Site, username: str) -> None:
    with quiet_client(site) as client:
        log_in(client, username)
        for path in paths_with_ids():
            if path.startswith("/api/"):
                continue  # the API reads no cookie: below, with a token
            for bad in BAD_IDS:
                url = PARAM.sub(bad, path)
                answer = client.get(url)
                assert answer.status_code in (400, 404), (url, answer.status_code)


def test_every_api_path_id_out_of_range_is_a_404(site: Site, arena: Arena) -> None:
    found = accounts.by_username(arena.store.writer, "alice")
    assert found is not None
    token = accounts.rotate_token(arena.store.writer, found.id)
    bearer = {"Authorization": f"Bearer {token}"}
    with quiet_client(site) as client:
        for path in paths_with_ids():
            if not path.startswith("/api/"):
                continue
            for bad in BAD_IDS:
                answer = client.get(PARAM.sub(bad, path), headers=bearer)
                assert answer.status_code in (400, 404), (path, bad, answer.status_code)


@pytest.mark.parametrize("username", ["alice", "tess"])
def test_every_page_cursor_out_of_range_is_refused(site: Site, username: str) -> None:
    with quiet_client(site) as client:
        log_in(client, username)
        for path in get_paths():
            url = PARAM.sub("1", path)
            for bad in BAD_IDS:
                answer = client.get(f"{url}?before={bad}&account={bad}&id={bad}")
                assert answer.status_code != 500, (url, bad)


def test_every_staff_form_id_out_of_range_is_refused(site: Site) -> None:
    with quiet_client(site) as client:
        log_in(client, "tess")
        for path, name in [*FORM_IDS.items(), ("/staff/accounts/disable", "account")]:
            for bad in BAD_IDS:
                form = {"csrf": session_csrf(client), name: bad, "reason": "x", "disabled": "1"}
                answer = client.post(path, data=form)
                assert answer.status_code in (400, 404, 409), (path, bad, answer.status_code)


async def test_a_page_error_goes_to_the_arena_log_with_its_traceback(arena: Arena) -> None:
    """What hypercorn logs of a failing page (its traceback) reaches DIR/arena.log."""
    handlers = log_to_file(arena)
    try:
        config = web_config("127.0.0.1:0")
        try:
            raise OverflowError("a page went wrong")
        except OverflowError:
            await config.log.exception("Error in ASGI Framework")
    finally:
        for name in LOGGERS:
            for handler in handlers:
                logging.getLogger(name).removeHandler(handler)
        for handler in handlers:
            handler.close()
    logged = arena.paths.log.read_text()
    assert "Error in ASGI Framework" in logged
    assert "OverflowError: a page went wrong" in logged and "Traceback" in logged
