"""A game that neither bot started playing (a double forfeit) in headless Chromium: the
tournament's latest results, its standings, the archive and the replay's verdict all name it so,
as a loss for both, never a draw."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import trio

from referee.app.config import load_config
from referee.tournament.resume import open_tournament
from referee.tournament.runner import Runner
from tests.web.conftest import serve_in_thread

CONFIG = """\
name = "cup"
game = "alak"
game_options = {{ size = 5 }}
games_per_pairing = 2
[[players]]
name = "folder"
command = "./somedir"
[[players]]
name = "missing"
command = "{python} nothere2.py"
[match.isolation]
level = "basic+root"
"""


async def played(tmp_path: Path) -> Path:
    # One command is a folder, the other a script that is not there: neither ever starts.
    (tmp_path / "somedir").mkdir()
    path = tmp_path / "cup.toml"
    path.write_text(CONFIG.format(python=sys.executable))
    loaded = load_config(path)
    store, _ = open_tournament(loaded)
    try:
        final = await Runner(loaded, store).run(handle_signals=False)
    finally:
        store.close()
    assert final.complete
    return loaded.directory


def cells(page: Any, selector: str) -> list[list[str]]:
    found: list[list[str]] = page.eval_on_selector_all(
        selector, "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))"
    )
    return found


def test_a_double_forfeit_is_shown_as_one_everywhere(page: Any, tmp_path: Path) -> None:
    # Played in a trio loop of its own: the server below runs in another thread's loop.
    directory = trio.run(played, tmp_path)
    with serve_in_thread([directory]) as server:
        page.goto(server.url + "/")
        page.wait_for_selector("section.tournament tr[data-game]")
        latest = cells(page, "section.tournament tr[data-game]")
        assert [row[3] for row in latest] == ["double forfeit by crash"] * 2, latest
        standings = cells(page, "section.tournament tr[data-player]")
        for row in standings:  # #, player, pts, games, W, D, L
            assert row[2:7] == ["0", "2", "0", "0", "2"], row
        page.wait_for_selector("#archive tr[data-record]")
        archive = cells(page, "#archive tr[data-record]")
        assert [row[5] for row in archive] == ["double forfeit by crash"] * 2, archive
        page.click("#archive tr[data-record] a")
        page.wait_for_selector(".rp-verdict")
        verdict = page.inner_text(".rp-verdict")
        assert verdict.startswith("No winner (both lose) by crash"), verdict
        assert "neither player could start" in verdict
