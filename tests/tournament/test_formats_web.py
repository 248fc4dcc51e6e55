"""The web dashboard of a staged tournament, in headless Chromium: the group tables with who
advanced, the finals' bracket and the final order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from referee.app.config import load_config
from referee.tournament.resume import open_tournament
from referee.tournament.runner import Runner
from tests.web.conftest import serve_in_thread

COURSE = """\
game = "tictactoe"

[settings]
timeout = 3

[agents]
ann = "builtin:greedy --seed {seed}"
bob = "builtin:random --seed {seed}"
cat = "builtin:random --seed {seed}"
dan = "builtin:greedy --seed {seed}"
eve = "builtin:random --seed {seed}"

[referee]
concurrency = 2
match = { isolation = { level = "basic+root" } }
"""


async def played(tmp_path: Path) -> Path:
    path = tmp_path / "cup.toml"
    path.write_text(COURSE)
    loaded = load_config(path)
    store, _ = open_tournament(loaded)
    try:
        final = await Runner(loaded, store).run(handle_signals=False)
    finally:
        store.close()
    assert final.complete
    return loaded.directory


def rows(page: Any, selector: str) -> list[list[str]]:
    found: list[list[str]] = page.eval_on_selector_all(
        selector, "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))"
    )
    return found


def test_the_dashboard_shows_groups_bracket_and_final_order(tmp_path: Path, browser: Any) -> None:
    # Played in a trio loop of its own: the server below runs in another thread's loop.
    directory = trio.run(played, tmp_path)
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        with serve_in_thread([directory]) as server:
            page.goto(server.url + "/")
            page.wait_for_selector('.stage[data-stage="First Round"] .group tr[data-player]')
            group = rows(page, '.stage[data-stage="First Round"] tr[data-player]')
            assert len(group) == 5  # one group of five: its table is the whole field
            advanced = [r[1] for r in group if "advances" in r]
            assert len(advanced) == 4  # the four who play the finals
            bracket = rows(page, '.stage[data-stage="Final Round"] tr[data-tie]')
            assert [r[0] for r in bracket] == ["Championship", "Third Place Match"]
            assert {r[1].split(" ")[0] for r in bracket} | {
                r[2].split(" ")[0] for r in bracket
            } == set(advanced)
            assert all(r[4] in advanced for r in bracket)  # each tie has a winner
            order = rows(page, ".plan .placings tr[data-player]")
            assert order[0][:2] == ["1", bracket[0][4]]
            assert order[0][2].startswith("won the Championship")
            progress = page.text_content("section.tournament [data-progress]") or ""
            assert "finished" in progress
            artifacts = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
            artifacts.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(artifacts / "dashboard-stages.png"), full_page=True)
    finally:
        context.close()
    assert not errors
