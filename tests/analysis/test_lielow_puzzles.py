"""Lielow's puzzles (`referee analyse lielow`): the length bound, the searches, the records they
write, and the committed answers (docs/records/lielow-*.jsonl) checked by `referee replay`."""

from __future__ import annotations

import argparse
import io
import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from protocols.base import IllegalMove, Reason, Side
from protocols.lielow.rules import GAME, SQUARE_INDEX
from referee.analysis import lielow_command
from referee.analysis.lielow_record import UnfinishedGame, write_game
from referee.analysis.lielow_search import (
    GROWTH,
    Budget,
    TooBig,
    broad_game,
    finish,
    length_bound,
    longest_game,
    longest_tail,
    moves_of,
    polish,
    replay_lines,
)
from referee.records import read_record
from referee.verify import verify_record
from tests.commandline import referee

ROOT = Path(__file__).resolve().parents[2]
LONGEST = ROOT / "docs" / "records" / "lielow-longest.jsonl"
BROAD = ROOT / "docs" / "records" / "lielow-broad.jsonl"
POST_RECORD = 197  # the longest game the puzzle's author found


def random_game(seed: int) -> list[str]:
    rng = random.Random(seed)
    state, lines = GAME.initial_state(), []
    while GAME.outcome(state) is None:
        move = rng.choice(list(GAME.legal_moves(state)))
        lines.append(GAME.format_move(move))
        state = GAME.apply(state, move)
    return lines


def test_growth_depends_on_where_a_stack_stands() -> None:
    def growth(square: str, height: int) -> int:
        return GROWTH[SQUARE_INDEX[square] * 9 + height]

    assert growth("a2", 1) == 7  # a fresh stack can reach 8
    assert growth("d4", 5) == 0  # every landing 5 away from d4 is off the board
    assert growth("a4", 7) == 1 and growth("d4", 7) == 0  # a 7 lands only edge to edge
    assert growth("c3", 6) == 0 and growth("b3", 6) == 2
    assert all(GROWTH[square * 9 + 8] == 0 for square in range(64))


@pytest.mark.parametrize("seed", range(6))
def test_the_bound_holds_and_the_budget_updates_match_a_fresh_count(seed: int) -> None:
    lines = random_game(seed)
    states = list(replay_lines(lines))
    budget = Budget.of(states[0])
    assert length_bound(states[0]) == 217
    for state, line, after in zip(states, lines, states[1:], strict=False):
        bound = length_bound(state)
        assert len(lines) <= bound  # no game through a position is longer than its bound
        budget = budget.after(state, GAME.parse_move(state, line))
        if after.lost is None:
            assert budget == Budget.of(after)
            assert length_bound(after) <= bound  # a move never raises the bound


def test_longest_search_is_a_complete_game_and_the_same_for_a_seed() -> None:
    first = longest_game(8, seed=3)
    assert first == longest_game(8, seed=3)
    assert first.complete and not first.interrupted
    states = list(replay_lines(first.moves))
    outcome = GAME.outcome(states[-1])
    assert outcome is not None and outcome.reason is Reason.GAME_ENDING
    assert all(GAME.outcome(state) is None for state in states[:-1])
    # A wider beam keeps what a narrower one keeps, and more: it is never much worse.
    assert len(first.moves) > 60


def test_the_longest_search_stops_at_its_deadline_with_a_game() -> None:
    layers: list[int] = []

    def progress(layer: int, best: int, bound: int, positions: int) -> None:
        layers.append(layer)

    found = longest_game(20, seed=0, deadline=lambda: len(layers) >= 30, progress=progress)
    assert not found.complete and found.layers == 30
    assert found.moves and len(found.moves) <= 30  # a game that ends by a king lost, in time
    assert GAME.outcome(list(replay_lines(found.moves))[-1]) is not None


def test_ctrl_c_in_the_search_returns_the_best_game_so_far() -> None:
    def progress(layer: int, best: int, bound: int, positions: int) -> None:
        if layer == 25:
            raise KeyboardInterrupt

    found = longest_game(20, seed=0, progress=progress)
    assert found.interrupted and found.layers == 25 and found.moves


def test_a_side_with_eight_interior_stacks_clear_of_each_other_has_64_moves() -> None:
    squares = ["b2", "d2", "f2", "b4", "d4", "f4", "b6", "d6"]
    stacks = {square: ("blue", 1) for square in squares} | {"h8": ("orange", 3)}
    state = GAME.state_from_stacks(stacks, kings={"blue": "b2"})
    assert moves_of(state, Side.BLUE) == 64 == len(GAME.legal_moves(state))
    # Moving one of them next to another takes a landing from both, and adds none.
    crowded = stacks | {"c3": ("blue", 1)}
    del crowded["b6"]
    assert moves_of(GAME.state_from_stacks(crowded, kings={"blue": "b2"}), Side.BLUE) < 64


def test_finish_plays_any_position_to_a_king_lost() -> None:
    state = list(replay_lines(random_game(1)[:20]))[-1]
    tail = finish(state)
    for move in tail:
        state = GAME.apply(state, move)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason is Reason.GAME_ENDING


def test_a_record_needs_a_finished_legal_game(tmp_path: Path) -> None:
    lines = random_game(2)
    with pytest.raises(UnfinishedGame):
        write_game(tmp_path / "cut.jsonl", lines[:-1], "test", 0)
    with pytest.raises(IllegalMove):
        write_game(tmp_path / "bad.jsonl", ["a2 a4", *lines], "test", 0)
    assert not list(tmp_path.iterdir())  # nothing written for either
    result = write_game(tmp_path / "game.jsonl", lines, "test", 0)
    record = read_record(tmp_path / "game.jsonl")
    assert verify_record(record).ok and result.plies == len(lines) == len(record.plies)
    assert record.header.players[Side.BLUE].name == "analysis: test"


def run_command(*argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    lielow_command.register(parser)
    args = parser.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    code = args.analyse(args, Console(file=out, width=200), Console(file=err, width=200))
    return code, out.getvalue()


def test_the_command_writes_a_record_that_replay_verifies(tmp_path: Path) -> None:
    target = tmp_path / "longest.jsonl"
    code, printed = run_command(
        "--longest", "--width", "10", "--runs", "1", "--seed", "1", "--out", str(target), "--json"
    )
    assert code == 0
    summary = json.loads(printed)
    assert summary["plies"] == len(summary["moves"]) == len(read_record(target).plies)
    assert summary["width"] == 10 and summary["out"] == str(target)
    checked = referee("replay", "--verify-only", str(target), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{summary['plies']} plies" in checked.stdout


def test_ctrl_c_stops_the_command_with_the_best_game_written(tmp_path: Path) -> None:
    target = tmp_path / "partial.jsonl"
    command = [sys.executable, "-m", "referee", "analyse", "lielow", "--longest"]
    options = ["--seconds", "120", "--out", str(target), "--json"]
    process = subprocess.Popen(
        [*command, *options], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    time.sleep(4)  # well into the first beam, which has found short games by then
    process.send_signal(signal.SIGINT)
    printed, _ = process.communicate(timeout=60)
    assert process.returncode == 130
    summary = json.loads(printed)
    assert summary["interrupted"] and summary["plies"] == len(read_record(target).plies) > 0
    assert verify_record(read_record(target)).ok


def test_the_command_refuses_a_bad_width() -> None:
    assert run_command("--broad", "--width", "0")[0] == 2
    assert run_command("--longest", "--runs", "-1")[0] == 2


def test_the_exact_endgame_never_shortens_a_game_and_ends_it_by_a_king_lost() -> None:
    found = longest_game(30, seed=2)
    polished = polish(found.moves, stacks=4)
    assert len(polished) >= len(found.moves)
    final = list(replay_lines(polished))[-1]
    outcome = GAME.outcome(final)
    assert outcome is not None and outcome.ending == "king-lost"


def test_the_exact_endgame_is_the_longest_from_a_small_position() -> None:
    # Blue's king (3 high) can grow to 8 in five moves; orange's single stack is its king.
    state = GAME.state_from_stacks({"a1": ("blue", 3), "h8": ("orange", 8)}, to_move="blue")
    tail = longest_tail(state)
    # Orange's only move is its king off the board: blue moves once, then orange loses.
    assert len(tail) == 2
    with pytest.raises(TooBig):
        longest_tail(list(replay_lines(random_game(0)[:6]))[-1], limit=50)


def test_the_broad_search_reports_nothing_found_when_out_of_plies() -> None:
    found = broad_game(5, seed=0, max_plies=3)
    assert found.moves == [] and found.complete and found.layers == 3


def test_the_committed_longest_game_beats_the_post_and_verifies() -> None:
    checked = referee("replay", "--verify-only", str(LONGEST), cwd=ROOT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    record = read_record(LONGEST)
    assert record.result is not None and record.result.ending == "king-lost"
    assert len(record.plies) > POST_RECORD
    assert record.header.options["ply_limit"] > len(record.plies)


def test_the_committed_broad_game_reaches_64_moves_and_verifies() -> None:
    checked = referee("replay", "--verify-only", str(BROAD), cwd=ROOT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    lines = [ply.move for ply in read_record(BROAD).plies]
    widest = max(len(GAME.legal_moves(state)) for state in replay_lines(lines))
    assert widest == 64
