"""The ladder's pages in a real Chromium, under the arena's Content-Security-Policy: a game's
replay drawn by the game's renderer, a game followed live as two script bots play it, and the
leaderboard refreshing itself when a rating changes. Pieces are checked by their SVG elements."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.arena.folder import Arena
from referee.arena.live_games import watch
from referee.arena.store import open_store
from referee.arena.web.app import create_app
from referee.arena.web.site import Site
from referee.match import driver
from referee.match.host import choose_host
from referee.match.order import GameOrder
from referee.match.recorder import Listener
from referee.players import PlayerSpec
from referee.records import read_record
from referee.replay import build_replay
from referee.web.listen import http_config, serve
from tests.arena.conftest import PASSWORD
from tests.arena.ladder import START, add_game, rate
from tests.arena.ladder_fixture import Ladder, make_ladder
from tests.arena.test_ladder_live import SETTINGS, bot

WAIT_MS = 60_000  # only against a hang


@dataclass
class Running:
    url: str
    token: trio.lowlevel.TrioToken

    def run(self, function: Any, *args: Any) -> Any:
        """Run an async function in the server's trio loop, from another thread."""
        return trio.from_thread.run(function, *args, trio_token=self.token)


@contextmanager
def served(site: Site) -> Iterator[Running]:
    """The arena's app on a free port, in a trio loop of its own thread."""
    ready = threading.Event()
    box: dict[str, Any] = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(
                partial(serve, create_app(site), http_config("127.0.0.1:0"))
            )
            box["url"] = binds[0].replace("0.0.0.0", "127.0.0.1")
            box["token"] = trio.lowlevel.current_trio_token()
            box["cancel"] = nursery.cancel_scope
            ready.set()

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    assert ready.wait(30), "the server did not start"
    try:
        yield Running(box["url"], box["token"])
    finally:
        trio.from_thread.run_sync(box["cancel"].cancel, trio_token=box["token"])
        thread.join(30)


@pytest.fixture
def ladder(arena: Arena) -> Ladder:
    return make_ladder(arena)


@pytest.fixture
def signed_in(page: Any, site: Site, ladder: Ladder) -> Iterator[tuple[Any, Running]]:
    """Chromium signed in as alice, every Content-Security-Policy complaint collected."""
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security" in m.text else None)
    with served(site) as running:
        page.goto(f"{running.url}/login")
        page.fill('input[name="username"]', "alice")
        page.fill('input[name="password"]', PASSWORD)
        page.click('button[type="submit"]')
        page.wait_for_url(f"{running.url}/")
        yield page, running
    assert refused == []


def pieces(page: Any) -> set[tuple[str, str]]:
    found = page.eval_on_selector_all(
        "svg.board .piece", "nodes => nodes.map(n => [n.dataset.square, n.dataset.owner])"
    )
    return {(square, owner) for square, owner in found}


def test_a_games_replay_is_drawn_by_the_games_renderer(
    signed_in: tuple[Any, Running], arena: Arena, ladder: Ladder
) -> None:
    page, running = signed_in
    page.goto(f"{running.url}/games/{ladder.alice_lost}#ply=6")
    page.wait_for_selector('svg.board[data-ply="6"]', timeout=WAIT_MS)
    replay = build_replay(read_record(arena.paths.games / f"{ladder.alice_lost}.jsonl"))
    cells = replay.frames[6].state["cells"]
    assert pieces(page) == {(square, owner) for square, owner in cells.items() if owner}
    assert "orange" in page.inner_text(".rp-verdict")
    page.click('button[data-action="start"]')
    page.wait_for_selector('svg.board[data-ply="0"]', timeout=WAIT_MS)
    assert pieces(page) == set()


def test_a_game_is_followed_live_in_the_browser(
    signed_in: tuple[Any, Running], site: Site, arena: Arena, ladder: Ladder, tmp_path: Path
) -> None:
    page, running = signed_in
    game_id = add_game(arena, ladder.alice_v2, ladder.carol_v1, state="running")
    record = arena.paths.games / f"{game_id}.jsonl"
    order = GameOrder(
        game="tic-tac-toe",
        players=(
            PlayerSpec(name="alice v2", command=bot(tmp_path, "b", ["a1", "a2", "a3"], "SECRET")),
            PlayerSpec(name="carol v1", command=bot(tmp_path, "o", ["b1", "b2"], "SECRET")),
        ),
        settings=SETTINGS.model_copy(update={"random_assignment": False}),  # alice is blue
    )
    listeners: list[Listener] = []
    running.run(partial(_watch_from_the_loop, site, game_id, record, listeners))
    page.goto(f"{running.url}/games/{game_id}")
    page.wait_for_selector("text=Waiting for the game to start", timeout=WAIT_MS)
    play = partial(_play, order, record, listeners)
    player = threading.Thread(target=running.run, args=(play,))
    player.start()
    page.wait_for_selector('svg.board[data-ply="5"]', timeout=WAIT_MS)
    player.join(WAIT_MS / 1000)
    assert pieces(page) == {
        ("a1", "blue"), ("a2", "blue"), ("a3", "blue"), ("b1", "orange"), ("b2", "orange"),
    }  # fmt: skip
    page.wait_for_selector(".rp-live.off", timeout=WAIT_MS)  # FINISHED
    assert "SECRET" not in page.content()


async def _watch_from_the_loop(
    site: Site, game_id: int, record: Path, listeners: list[Listener]
) -> None:
    # The hub's channels belong to the server's trio loop: the listener is made in it.
    listeners.append(watch(site.live, game_id, record))


async def _play(order: GameOrder, record: Path, listeners: list[Listener]) -> None:
    host = choose_host(order.settings.isolation)
    await driver.play(order, host, record_path=record, listener=listeners[0])


def test_the_leaderboard_refreshes_itself_when_a_rating_changes(
    signed_in: tuple[Any, Running], arena: Arena, ladder: Ladder
) -> None:
    page, running = signed_in
    page.clock.install()
    page.goto(f"{running.url}/leaderboard")
    first = "document.querySelector('#leaderboard tbody td:nth-child(4)').textContent"
    assert page.evaluate(first) == "1550"
    other = open_store(arena.paths.store)  # another connection, as the ratings part has
    try:
        rate(other.writer, ladder.alice_v2, 1612.0, low=1580.0, high=1650.0, rank=1, at=START)
    finally:
        other.close()
    page.clock.fast_forward("00:20")
    page.wait_for_selector("#leaderboard tbody td:nth-child(4):text-is('1612')", timeout=WAIT_MS)
    assert page.evaluate("document.querySelectorAll('#leaderboard').length") == 1
