"""A game started from an opening of an odd number of moves, as the terminal shows it: the
opening heads the move list, marked so, and every row keeps blue's move in blue's column and
orange's in orange's, the rows numbered once each from the start of the game; `play --json`
says what the opening was."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from protocols.base import Side
from referee.replay import load_replay
from referee.views.console import move_rows, replay_frame
from tests.commandline import referee
from tests.replay.make_records import opening_record_lines, write_record

OPENING = 3  # plies: the bots' first move is orange's


@pytest.fixture
def replay_path(tmp_path: Path) -> Path:
    path = tmp_path / "from-an-opening.jsonl"
    write_record(path, opening_record_lines("lasker-morris", 7, OPENING, max_plies=30))
    return path


def test_the_rows_hold_each_side_in_its_column_from_the_start_of_the_game(
    replay_path: Path,
) -> None:
    replay = load_replay(replay_path)
    opening = replay.header.opening or []
    assert len(opening) == OPENING and replay.plies[0].side is Side.ORANGE
    rows = move_rows(replay.plies, opening)
    assert [number for number, _, _ in rows] == list(range(1, len(rows) + 1))
    for _, blue, orange in rows:
        assert blue is None or blue.side is Side.BLUE
        assert orange is None or orange.side is Side.ORANGE
    listed = [cell for _, blue, orange in rows for cell in (blue, orange) if cell is not None]
    assert [cell.move for cell in listed] == [*opening, *(p.move for p in replay.plies)]
    assert [cell.ply for cell in listed[:OPENING]] == [None] * OPENING  # the opening's own
    # The opening's last move is blue's: the bots' first, orange's, completes its row.
    _, blue, orange = rows[1]
    assert blue is not None and blue.ply is None and orange is not None
    assert orange.ply is replay.plies[0]


def frame_text(replay_path: Path, ply: int) -> str:
    console = Console(record=True, width=100, color_system=None)
    console.print(replay_frame(load_replay(replay_path), ply, 100, colour=False))
    return console.export_text()


def test_the_terminal_replay_names_the_opening_and_numbers_each_row_once(
    replay_path: Path,
) -> None:
    replay = load_replay(replay_path)
    opening = replay.header.opening or []
    text = frame_text(replay_path, 2)
    assert f"ply 2 of {len(replay.plies)}, after an opening of {OPENING} plies" in text
    rows = [line.strip("│ ") for line in text.splitlines()]
    numbered = [row for row in rows if re.match(r"\d+  \S", row)]
    assert [int(row.split()[0]) for row in numbered] == list(range(1, len(numbered) + 1))
    # Row 1: the opening's first two moves, marked; row 2: its third, then orange's first.
    first = ["1", *opening[0].split(), "opening", *opening[1].split(), "opening"]
    assert numbered[0].split() == first
    assert numbered[1].startswith(f"2  {opening[2]}  opening")
    assert replay.plies[0].move in numbered[1]


def test_play_json_and_summary_show_the_opening(tmp_path: Path) -> None:
    done = referee("play", "tic-tac-toe", "-p1", "builtin:random", "-p2", "builtin:random",
                   "--opening", "b2, a1, c3", "--seed", "3", "--record", "g.jsonl", "--json",
                   "--isolation", "basic+root", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["opening"] == ["b2", "a1", "c3"]
    assert "after an opening of 3 plies" in done.stderr
    moves = done.stderr[done.stderr.index("Moves") :]
    assert re.search(r"1\s+b2\s+opening\s+a1\s+opening", moves), moves
    assert re.search(r"2\s+c3\s+opening\s+\S+\s+\d", moves), moves  # then orange's first move
