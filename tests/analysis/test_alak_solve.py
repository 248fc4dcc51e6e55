"""`referee analyse alak`: the rules page's 6-point results; perfect play checked by the rules."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time

import pytest

from bots.solvers.alak import Value
from bots.solvers.alak import pack as baljeu_pack
from bots.solvers.alak import solve as solve_baljeu
from protocols.alak.rules import GAME, TraditionalState, place, rules_for, traditional_start
from protocols.base import Side
from referee.analysis.alak_solve import (
    DRAW,
    LOSS,
    PASS,
    Table,
    baljeu_openings,
    moves,
    pack,
    solve_traditional,
    traditional_openings,
)


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


@pytest.mark.parametrize("size", range(2, 10))
def test_baljeu_openings_agree_with_the_perfect_bots_solver(size: int) -> None:
    solution = solve_baljeu(size)
    rules = rules_for(size, 0, 0)
    names = {Value.LOSS: "blue", Value.WIN: "orange", Value.DRAW: "draw"}
    mine = baljeu_openings(size)
    for point in range(size):
        own, enemy, captured = place(rules, 0, 0, point)
        value, plies = solution.lookup(baljeu_pack(size, enemy, own, captured))
        letter = "abcdefghijklmnopqrstuvwxyz"[point]
        assert mine.results[letter] == names[value]
        assert mine.plies[letter] == (plies + 1 if value is not Value.DRAW else 0)


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
            best = (plies, "pass" if point == PASS else "abcdefghijklmnopqrstuvwxyz"[point])
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
