"""The web replay of a game started from an opening of an odd number of moves, in headless
Chromium: the opening heads the move list, each row keeps blue's move in blue's column and is
numbered once, from the start of the game; the status and the slider say the same ply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.replay import load_replay
from referee.web.html_export import replay_html
from tests.replay.make_records import opening_record_lines, write_record

OPENING = 3  # plies: the bots' first move is orange's


def test_the_web_replay_lists_the_opening_and_agrees_with_its_slider(
    page: Any, tmp_path: Path
) -> None:
    record = tmp_path / "from-an-opening.jsonl"
    write_record(record, opening_record_lines("lasker-morris", 7, OPENING, max_plies=30))
    replay = load_replay(record)
    opening = replay.header.opening or []
    target = tmp_path / "replay.html"
    target.write_text(replay_html(replay), encoding="utf-8")
    page.goto(target.as_uri() + "#ply=2")
    page.wait_for_selector('svg.board[data-ply="2"]')
    rows = page.eval_on_selector_all(
        ".rp-moves tr",
        """rows => rows.map(r => ({
            number: r.cells[0].textContent,
            blue: r.cells[1] ? r.cells[1].firstElementChild?.className || "" : "",
            orange: r.cells[2] ? r.cells[2].firstElementChild?.className || "" : "",
            text: [...r.cells].slice(1).map(c => c.textContent),
        }))""",
    )
    assert [row["number"] for row in rows] == [str(n) for n in range(1, len(rows) + 1)]
    for row in rows:  # blue's moves in blue's column, orange's in orange's
        assert row["blue"] == "" or "side-blue" in row["blue"], row
        assert row["orange"] == "" or "side-orange" in row["orange"], row
    assert "opening" in rows[0]["blue"] and "opening" in rows[0]["orange"]
    assert rows[1]["text"][0].startswith(opening[2]) and "opening" in rows[1]["blue"]
    assert rows[1]["text"][1].startswith(replay.plies[0].move)  # the bots' first move
    assert page.text_content(".rp-ply") == f"ply 2 / {len(replay.plies)}"
    assert "to move, ply 2" in (page.text_content(".rp-status") or "")
    page.click('.rp-moves button[data-ply="1"]')
    page.wait_for_selector('svg.board[data-ply="1"]')
    assert page.text_content(".rp-ply") == f"ply 1 / {len(replay.plies)}"
    assert "to move, ply 1" in (page.text_content(".rp-status") or "")
