"""The example game plug-in's board renderer in a real browser: the web view loads it with every
game's from `/games/renderers.js`, the HTML export inlines it. (The plug-in is installed by the
README's test command; tests/plugins/ checks that.) Screenshots go to test-artifacts/web/."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.replay import load_replay
from tests.conftest import ReadableFolders
from tests.replay.make_records import random_record
from tests.web.conftest import ServerThread, serve_in_thread

PLUGINS = ["connect-four"]
PIECES_JS = "els => els.map(e => [e.dataset.square, e.dataset.owner])"


def expected_pieces(game: str, state: dict[str, Any]) -> set[tuple[str, str]]:
    return {(square, owner) for square, owner in state["discs"].items() if owner}


def check_frame(page: Any, game: str, state: dict[str, Any], ply: int) -> None:
    page.wait_for_selector(f'svg.board[data-ply="{ply}"]')
    drawn = {tuple(p) for p in page.eval_on_selector_all("svg.board .piece", PIECES_JS)}
    assert drawn == expected_pieces(game, state), f"ply {ply}"


@pytest.fixture(scope="module")
def records(readable_folders: ReadableFolders) -> Path:
    folder = readable_folders.mktemp("plugin-records")
    for number, game in enumerate(PLUGINS):
        random_record(folder / f"{game}.jsonl", game, 20 + number)
    return folder


@pytest.fixture(scope="module")
def server(records: Path) -> Iterator[ServerThread]:
    with serve_in_thread([records]) as running:
        yield running


@pytest.mark.parametrize("game", PLUGINS)
def test_the_web_view_draws_a_plugin_game_with_its_renderer(
    page: Any, server: ServerThread, records: Path, artifacts: Path, game: str
) -> None:
    replay = load_replay(records / f"{game}.jsonl")
    last = len(replay.plies)
    page.goto(f"{server.url}/replay/0/{game}.jsonl#ply={last}")
    check_frame(page, game, replay.frames[last].state, last)
    page.screenshot(path=str(artifacts / f"plugin-{game}.png"), full_page=True)


@pytest.mark.parametrize("game", PLUGINS)
def test_the_html_export_inlines_a_plugin_renderer(
    page: Any, records: Path, tmp_path: Path, game: str
) -> None:
    target = tmp_path / f"{game}.html"
    done = subprocess.run(
        [sys.executable, "-m", "referee", "replay", "--html", str(records / f"{game}.jsonl"),
         "-o", str(target)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    replay = load_replay(records / f"{game}.jsonl")
    page.goto(target.as_uri() + "#ply=3")
    check_frame(page, game, replay.frames[3].state, 3)
