"""`referee analyse alak`: the rules page's 6-point results, the published tables on small boards;
perfect play checked by the rules."""

from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from protocols.alak.rules import GAME, LETTERS, TraditionalState, rules_for, traditional_start
from protocols.base import Side
from referee.analysis.alak_solve import (
    DRAW,
    LOSS,
    PASS,
    Openings,
    Table,
    baljeu_openings,
    moves,
    pack,
    solve_traditional,
    traditional_openings,
)

Solver = Callable[[int], Openings]


def analyse(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", "analyse", "alak", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_rules_page_six_points() -> None:
    # Black (blue) wins by opening on point 2 (b); White wins if Black opens on point 3 (c).
    done = analyse("--size", "6", "--variant", "traditional", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["openings"]["b"] == "blue"
    assert result["openings"]["c"] == "orange"
    assert result["value"] == "blue" and result["best"] == ["b", "e"]
    assert set(result["openings"]) == {"a", "b", "c", "d", "e", "f", "pass"}


def test_text_output_and_bad_size() -> None:
    done = analyse("--size", "4", "--variant", "traditional")
    assert done.returncode == 0
    assert done.stdout.splitlines()[0].startswith("traditional Alak on 4 points: blue wins")
    assert "  b     blue wins in 5 plies" in done.stdout.splitlines()
    bad = analyse("--size", "0")
    assert bad.returncode == 2 and "1..26 points, not 0" in bad.stderr
    too_big = analyse("--size", "12", "--max-states", "1000")
    assert too_big.returncode == 3 and "more than 1,000 states" in too_big.stderr
    assert too_big.stdout == ""


def test_baljeu_openings_match_the_rules_page_table() -> None:
    seven = baljeu_openings(7)
    assert seven.value == "blue" and seven.best == ["d"] and seven.plies["d"] == 13
    assert baljeu_openings(6).value == "draw"
    assert baljeu_openings(4).value == "orange"


PUBLISHED = Path(__file__).resolve().parents[2] / "docs" / "analysis" / "alak.md"


def published_rows(section: str) -> dict[int, tuple[str, list[str], int]]:
    """points -> (value, best openings, positions) of the table under `section`'s heading."""
    text = PUBLISHED.read_text(encoding="utf-8").split(f"## {section}", 1)[1].split("\n## ")[0]
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != 5 or not cells[0].isdigit():
            continue
        size = int(cells[0])
        # "all", or the best openings in backquotes, before any note in brackets.
        best = re.findall(r"`([a-z]+)`", cells[2].split("(")[0])
        rows[size] = (cells[1], best or list(LETTERS[:size]), int(cells[3].replace(",", "")))
    return rows


@pytest.mark.parametrize(
    ("section", "solve", "largest"),
    [("Traditional Alak", traditional_openings, 7), ("Baljeu's rules", baljeu_openings, 9)],
)
def test_the_published_tables_on_small_boards(section: str, solve: Solver, largest: int) -> None:
    rows = published_rows(section)
    assert min(rows) == 5 and max(rows) >= largest
    for size in range(5, largest + 1):
        result = solve(size)
        value, best, positions = rows[size]
        assert (result.value, result.best, result.positions) == (value, best, positions), size


def test_the_published_baljeu_lengths_on_seven_points() -> None:
    seven = baljeu_openings(7)
    assert seven.best == ["d"] and seven.plies["d"] == 13
    assert seven.plies["b"] == seven.plies["f"] == 15
    assert "`d` (in 13 plies; `b`, `f` in 15)" in PUBLISHED.read_text(encoding="utf-8")


def test_small_boards() -> None:
    assert traditional_openings(3).results == {
        "a": "orange",
        "b": "blue",
        "c": "orange",
        "pass": "orange",
    }
    assert traditional_openings(5).value == "draw"
    # A window too narrow to decide leaves openings open rather than guessing.
    narrow = traditional_openings(6, window=2)
    assert "unresolved" in narrow.results.values()


def _winning_move(table: Table, state: TraditionalState) -> str:
    """The move that wins fastest, by the table, in the rule module's state."""
    size = state.rules.size
    own, enemy = (
        (state.blue, state.orange)
        if state.to_move is Side.BLUE
        else (
            state.orange,
            state.blue,
        )
    )
    balance = state.blue_captured - state.orange_captured
    if state.to_move is Side.ORANGE:
        balance = -balance
    orange = int(state.to_move is Side.ORANGE)
    key = pack(size, own, enemy, state.banned, state.passes, balance, orange)
    best: tuple[int, str] | None = None
    for point, child in moves(rules_for(size, 0, 0), key, table.window):
        value, plies = table.lookup(child)
        if value == LOSS and (best is None or plies < best[0]):
            best = (plies, "pass" if point == PASS else LETTERS[point])
    assert best is not None, "a won position has a winning move"
    return best[1]


@pytest.mark.parametrize("seed", range(6))
def test_perfect_play_wins_under_the_rules_against_any_defence(seed: int) -> None:
    # Blue opens b on 6 points and follows the table; orange defends at random. The game is
    # played by the rule module itself, third occurrence and all: blue must win every time.
    table = solve_traditional(6, 12)
    rng = random.Random(seed)
    state = GAME.apply(
        traditional_start(6, ply_limit=0), GAME.parse_move(traditional_start(6), "b")
    )
    while GAME.outcome(state) is None:
        if state.to_move is Side.BLUE:
            line = _winning_move(table, state)
        else:
            line = GAME.format_move(rng.choice(list(GAME.legal_moves(state))))
        state = GAME.apply(state, GAME.parse_move(state, line))
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner is Side.BLUE, outcome


def test_draw_values_are_reported_as_draws() -> None:
    table = solve_traditional(5, 10)
    start = pack(5, 0, 0, 0, 0, 0, 0)
    assert table.lookup(start) == (DRAW, 0)


def test_seconds_limit_and_ctrl_c_stop_cleanly() -> None:
    gave_up = analyse("--size", "14", "--variant", "traditional", "--seconds", "0.5")
    assert gave_up.returncode == 3 and "gave up after 0.5 s" in gave_up.stderr
    assert gave_up.stdout == ""
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "analyse", "alak", "--size", "14"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(2)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130 and "interrupted" in err and out == ""
