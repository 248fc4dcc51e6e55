"""Fixtures for the web view: a real server on a free port in a background thread, and a real
headless Chromium driven by playwright (the machine's own browser, /usr/bin/chromium)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.web.live import LiveHub
from referee.web.server import WebServer, start_web_server

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"


@dataclass
class ServerThread:
    """A web server running in its own trio loop; `call` runs a function in that loop."""

    server: WebServer
    token: trio.lowlevel.TrioToken

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def hub(self) -> LiveHub:
        return self.server.hub

    def call(self, function: Callable[..., Any], *args: Any) -> Any:
        return trio.from_thread.run_sync(function, *args, trio_token=self.token)


@contextmanager
def serve_in_thread(folders: list[Path]) -> Iterator[ServerThread]:
    ready = threading.Event()
    box: dict[str, Any] = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            box["server"] = await start_web_server(nursery, folders, 0)
            box["token"] = trio.lowlevel.current_trio_token()
            box["cancel"] = nursery.cancel_scope
            ready.set()

    def run() -> None:
        try:
            trio.run(main)
        except BaseException as exc:  # shown by the test that waits for `ready`
            box["error"] = exc
            ready.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30), "the server did not start"
    if "error" in box:
        raise box["error"]
    handle = ServerThread(box["server"], box["token"])
    try:
        yield handle
    finally:
        handle.call(box["cancel"].cancel)
        thread.join(30)
        assert not thread.is_alive(), "the server did not stop"


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
