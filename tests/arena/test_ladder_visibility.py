"""Who sees what, tried as each kind of visitor would: every page and JSON answer of the ladder
at each `[visibility]` setting, for a visitor, another student, the owner and the staff; ids of
others' games, pages and records (IDOR); and a 404 that says nothing about what exists."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from starlette.testclient import TestClient

from referee.arena.config import VisibilitySettings
from referee.arena.folder import Arena
from referee.arena.sessions import SESSION_COOKIE
from referee.arena.web.site import Site
from tests.arena.conftest import Clock, browser, log_in, plant
from tests.arena.ladder import START, account
from tests.arena.ladder_fixture import ALICE_STDERR, Ladder, make_ladder

SETTINGS = ("hidden", "participants", "public")
VIEWERS = ("visitor", "carol", "alice", "tess")  # nobody, another student, the owner, staff


@pytest.fixture
def ladder(arena: Arena, clock: Clock) -> Ladder:
    clock.now = START
    return make_ladder(arena)


@pytest.fixture
def cookies(site: Site, ladder: Ladder) -> dict[str, str]:
    """A session cookie of each signed-in viewer (sessions are the store's: any site of the
    same arena accepts them)."""
    found = {}
    for name in VIEWERS[1:]:
        with browser(site) as client:
            log_in(client, name)
            found[name] = client.cookies[SESSION_COOKIE]
    return found


def site_with(site: Site, leaderboard: str, games: str) -> Site:
    settings = VisibilitySettings(leaderboard=leaderboard, games=games)  # type: ignore[arg-type]
    config = site.config.model_copy(update={"visibility": settings})
    return Site(site.store, config, site.signer, clock=site.clock)


@contextmanager
def as_viewer(site: Site, cookies: dict[str, str], viewer: str) -> Iterator[TestClient]:
    with browser(site) as client:
        if viewer in cookies:
            plant(client, SESSION_COOKIE, cookies[viewer])
        yield client


def outcome(client: TestClient, address: str) -> str:
    """What a viewer got: 'shown', 'login' (sent to the login page) or '404'."""
    response = client.get(address)
    if response.status_code == 303:
        assert response.headers["location"].startswith("/login?next=")
        return "login"
    assert response.status_code in (200, 404), (address, response.status_code)
    return "shown" if response.status_code == 200 else "404"


def expected(setting: str, viewer: str) -> str:
    """What a `[visibility]` setting gives a viewer of others' things."""
    if viewer == "tess" or setting == "public":
        return "shown"
    if setting == "participants":
        return "login" if viewer == "visitor" else "shown"
    return "login" if viewer == "visitor" else "404"


@pytest.mark.parametrize("games", SETTINGS)
def test_every_page_at_every_setting_for_every_viewer(
    site: Site, cookies: dict[str, str], ladder: Ladder, games: str
) -> None:
    game = f"/games/{ladder.alice_lost}"  # alice against bob: none of carol's business
    for board in SETTINGS:
        shown = site_with(site, board, games)
        for viewer in VIEWERS:
            with as_viewer(shown, cookies, viewer) as client:
                got = {
                    address: outcome(client, address)
                    for address in (
                        "/leaderboard",
                        game,
                        f"{game}/record.json",
                        "/games",
                        "/queue",
                        f"/students/{ladder.alice}",
                        f"/students/{ladder.alice}/losses",
                    )
                }
            own = "shown" if viewer in ("alice", "tess") else expected(games, viewer)
            page = (
                "shown"
                if viewer in ("alice", "tess")
                else "login"
                if viewer == "visitor"
                else "404"
            )
            listing = "shown" if viewer != "visitor" else expected(games, viewer)
            assert got == {
                "/leaderboard": expected(board, viewer),
                game: own,
                f"{game}/record.json": own,
                "/games": listing,
                "/queue": listing,
                f"/students/{ladder.alice}": page,
                f"/students/{ladder.alice}/losses": page,
            }, (board, games, viewer)


@pytest.mark.parametrize("games", SETTINGS)
def test_where_others_games_are_hidden_lists_show_a_students_own_only(
    site: Site, cookies: dict[str, str], ladder: Ladder, games: str
) -> None:
    shown = site_with(site, "participants", games)
    with as_viewer(shown, cookies, "carol") as client:
        listed = client.get("/games").text + client.get("/queue").text
    others = [ladder.alice_lost, ladder.alice_crashed]
    assert all((f'href="/games/{g}"' in listed) == (games != "hidden") for g in others)
    # Her own games are always there: the one she lost to bob, and the one waiting.
    assert (
        f'href="/games/{ladder.others}"' in listed and f'href="/games/{ladder.pending}"' in listed
    )


def test_a_404_for_what_exists_is_the_404_for_what_does_not(
    site: Site, cookies: dict[str, str], ladder: Ladder
) -> None:
    """Probing ids tells nothing: another's game, page or record answers exactly as an id that
    names nothing, a staff account's page and an id too large for the store."""
    hidden = site_with(site, "hidden", "hidden")
    with as_viewer(hidden, cookies, "carol") as client:
        nothing = client.get("/no-such-page")
        assert nothing.status_code == 404
        for address in (
            f"/games/{ladder.alice_lost}",
            "/games/999999",
            f"/games/{ladder.alice_lost}/record.json",
            "/games/999999/record.json",
            f"/games/{ladder.running}/live",
            f"/students/{ladder.alice}",
            "/students/999999",
            f"/students/{ladder.alice}/losses",
            f"/students/{ladder.carol + 1000}/losses",
            "/games/99999999999999999999999999",
            "/leaderboard",
        ):
            answer = client.get(address)
            assert (answer.status_code, answer.text) == (404, nothing.text), address
    with as_viewer(hidden, cookies, "tess") as client:
        staff_member = account(site.store.writer, "tess")  # only students have a page
        assert client.get(f"/students/{staff_member}").status_code == 404


def test_staff_see_any_students_page_and_losses(
    site: Site, cookies: dict[str, str], ladder: Ladder
) -> None:
    with as_viewer(site, cookies, "tess") as client:
        page = client.get(f"/students/{ladder.alice}/losses")
    assert page.status_code == 200 and ALICE_STDERR in page.text


def test_a_visitor_never_sees_a_private_part_even_where_everything_is_public(
    site: Site, ladder: Ladder
) -> None:
    public = site_with(site, "public", "public")
    with browser(public) as client:
        client.headers.pop("Origin")
        texts = [
            client.get(address).text
            for address in (
                "/leaderboard",
                "/games",
                f"/games/{ladder.alice_crashed}",
                f"/games/{ladder.alice_crashed}/record.json",
            )
        ]
    for text in texts:
        assert "STDERR" not in text and "LAST-WORDS" not in text and "secret_bot" not in text
    assert "Alice Student" in texts[0] and "Log in" in texts[0]
