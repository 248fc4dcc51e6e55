"""A small generated league: tournaments whose records the referee's verifier accepts, with
results drawn from known ratings (scripts/league_generator.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.league.config import LeagueConfig, save_league
from scripts.league_generator import Plan, generate

PLAN = Plan(players=10, games=450, tournaments=3, seed=4)


@pytest.fixture
def sources(tmp_path: Path) -> list[Path]:
    return generate(tmp_path / "runs", PLAN)


@pytest.fixture
def league(tmp_path: Path, sources: list[Path]) -> Path:
    """A league folder naming the generated tournaments (not read yet)."""
    folder = tmp_path / "league"
    folder.mkdir()
    entries = [f"../runs/{s.name}" for s in sources]
    save_league(folder, LeagueConfig(name="test league", sources=entries))
    return folder


@pytest.fixture
def rated(league: Path) -> Path:
    """The league, read and rated (30 resamples, history by source)."""
    from referee.league.config import FitSettings, load_league
    from referee.league.discovery import sync
    from referee.league.index import open_index
    from referee.league.rating import rate_league

    index = open_index(league, writer=True)
    try:
        sync(index, league, load_league(league))
        rate_league(index, FitSettings(bootstrap=30), lambda *_: None)
    finally:
        index.close()
    return league


@contextmanager
def serve_league_in_thread(folder: Path) -> Iterator[str]:
    """The league's dashboard on a free port, in a thread of its own; yields its address."""
    from referee.league.config import load_league
    from referee.web.league_server import league_app
    from referee.web.listen import http_config, serve

    app = league_app(folder, load_league(folder), ["127.0.0.1"])
    ready = threading.Event()
    box: dict[str, Any] = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(partial(serve, app, http_config("127.0.0.1:0")))
            box["url"], box["cancel"] = binds[0], nursery.cancel_scope
            box["token"] = trio.lowlevel.current_trio_token()
            ready.set()

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    assert ready.wait(30), "the server did not start"
    try:
        yield box["url"]
    finally:
        trio.from_thread.run_sync(box["cancel"].cancel, trio_token=box["token"])
        thread.join(30)
