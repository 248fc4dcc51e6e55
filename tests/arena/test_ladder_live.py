"""A ladder game watched live, for real: two script bots play a game through the referee's
match while a player follows it over HTTP from the arena's own server (server-sent
events); the stream carries every move and the result, and no bot's stderr or command. Once the
game is over, its page shows each author their own stderr alone."""

from __future__ import annotations

import json
import re
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import trio

from referee.arena.folder import Arena
from referee.arena.live_games import watch
from referee.arena.store import stamp, transaction
from referee.arena.web.app import create_app
from referee.arena.web.site import Site
from referee.isolation import IsolationSettings
from referee.match import driver
from referee.match.host import choose_host
from referee.match.order import GameOrder
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec
from referee.web.listen import http_config, serve
from tests.arena.conftest import PASSWORD
from tests.arena.ladder import START, account, add_game, add_version
from tests.scriptbots import script_bot

# The script bots run beside the test, without a sandbox (the isolation has tests of its own).
SETTINGS = MatchSettings(
    move_timeout=5.0,
    grace=0.5,
    startup_allowance=5.0,
    exit_grace=0.5,
    isolation=IsolationSettings(level="basic+root"),
    random_assignment=False,
)
HANG_GUARD = 300  # seconds: only against a hang, never a measure of speed


def bot(tmp_path: Path, name: str, moves: list[str], secret: str) -> str:
    """A bot that writes `secret` on stderr before each move, and waits a little so that the
    page sees the moves arrive one by one."""
    return script_bot(
        tmp_path,
        name,
        f"""
        MOVES = {moves!r}
        def move():
            sys.stderr.write({secret!r} + "\\n"); sys.stderr.flush()
            time.sleep(0.15)
            say(MOVES.pop(0))
        if hear() == "blue":
            move()
        while True:
            line = hear()
            if line in ("END", ""):
                break
            move()
        """,
    )


async def logged_in(client: httpx.AsyncClient, username: str) -> None:
    page = await client.get("/login")
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert token is not None
    form = {"username": username, "password": PASSWORD, "csrf": token.group(1), "next": "/"}
    assert (await client.post("/login", data=form)).status_code == 303


async def events_until_result(response: httpx.Response) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    event = None
    async for line in response.aiter_lines():
        if line.startswith("event: "):
            event = line.removeprefix("event: ")
        elif line.startswith("data: ") and event is not None:
            found.append((event, json.loads(line.removeprefix("data: "))))
            if event == "result":
                break
    return found


async def test_a_game_is_followed_live_without_anyones_stderr(
    arena: Arena, site: Site, tmp_path: Path
) -> None:
    db = arena.store.writer
    bobs = add_version(db, account(db, "bob"))
    alices = add_version(db, account(db, "alice"))
    game_id = add_game(arena, bobs, alices, state="running")
    record = arena.paths.games / f"{game_id}.jsonl"
    order = GameOrder(
        game="tic-tac-toe",
        players=(
            PlayerSpec(name="bob v1", command=bot(tmp_path, "b", ["a1", "a2", "a3"], "BOB-SECRET")),
            PlayerSpec(name="alice v1", command=bot(tmp_path, "o", ["b1", "b2"], "ALICE-SECRET")),
        ),
        settings=SETTINGS.model_copy(update={"random_assignment": False}),  # bob is blue
    )
    play = partial(
        driver.play,
        order,
        choose_host(SETTINGS.isolation),
        record_path=record,
        listener=watch(site.live, game_id, record),
    )
    with trio.fail_after(HANG_GUARD):
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(
                partial(serve, create_app(site), http_config("127.0.0.1:0"))
            )
            url = binds[0].replace("0.0.0.0", "127.0.0.1")
            async with httpx.AsyncClient(base_url=url, headers={"Origin": url}) as bob_browser:
                await logged_in(bob_browser, "bob")  # bob watches his own game...
                async with httpx.AsyncClient(base_url=url) as visitor:
                    refused = await visitor.get(f"/games/{game_id}/live")
                    assert refused.status_code == 303  # ...a visitor may not
                page = await bob_browser.get(f"/games/{game_id}")
                assert f'data-live="/games/{game_id}/live"' in page.text
                async with bob_browser.stream("GET", f"/games/{game_id}/live") as stream:
                    assert stream.headers["content-type"].startswith("text/event-stream")
                    nursery.start_soon(play)
                    events = await events_until_result(stream)
            nursery.cancel_scope.cancel()
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "snapshot" and kinds[-1] == "result"
    moves = [data["ply"]["move"] for kind, data in events if kind == "ply"]
    started = next(data for kind, data in events if kind == "snapshot" and data["header"])
    # Watched from before the start: the moves came one by one, as they were played.
    assert started["plies"] == [] and moves == ["a1", "b1", "a2", "b2", "a3"]
    assert {side: p["command"] for side, p in started["header"]["players"].items()} == {
        "blue": "",
        "orange": "",
    }
    result = events[-1][1]["result"]
    assert result["winner"] == "blue"
    stream_text = json.dumps(events)
    for secret in ("BOB-SECRET", "ALICE-SECRET", "python"):
        assert secret not in stream_text, secret
    assert all(report["stderr_tail"] == "" for report in result["bots"].values())

    # The games part commits the result; then each author sees their own stderr alone.
    with transaction(db):
        db.execute(
            "UPDATE games SET state = 'done', record = ?, winner = 'blue', finished_at = ?"
            " WHERE id = ?",
            (f"games/{game_id}.jsonl", stamp(START), game_id),
        )
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve, create_app(site), http_config("127.0.0.1:0")))
        url = binds[0].replace("0.0.0.0", "127.0.0.1")
        async with httpx.AsyncClient(base_url=url, headers={"Origin": url}) as alice:
            await logged_in(alice, "alice")
            page = (await alice.get(f"/games/{game_id}")).text
            data = (await alice.get(f"/games/{game_id}/record.json")).json()
        nursery.cancel_scope.cancel()
    assert "ALICE-SECRET" in page and "BOB-SECRET" not in page
    assert "ALICE-SECRET" in data["result"]["bots"]["orange"]["stderr_tail"]
    assert data["result"]["bots"]["blue"]["stderr_tail"] == ""
