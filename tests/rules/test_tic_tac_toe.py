"""Tic-tac-toe as the course referee has it, shipped with the referee: `blue` (X, first) and
`orange` (O) on the first line, moves `<column><row>` with columns a..c and rows 1..3 from the
bottom, capitals accepted; `referee tictactoe -p1 ... -p2 ...` plays it as `cs4341-referee
tictactoe` does."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from protocols import canonical_name, entry, get_game
from protocols.base import BadSyntax, IllegalMove, Side
from referee.cli import normalise_argv
from referee.records import read_record
from referee.verify import verify_record
from tests.commandline import referee

COURSE_STYLE_BOT = """\
import sys

colour = input().strip()
board = {f"{c}{r}": None for c in "abc" for r in "123"}
if colour == "orange":
    board[input().strip().lower()] = "them"
while True:
    move = next(square for square, owner in board.items() if owner is None)
    board[move] = "me"
    print(move.upper(), flush=True)
    try:
        board[input().strip().lower()] = "them"
    except EOFError:
        break
"""


def test_tic_tac_toe_is_a_builtin_game() -> None:
    found = entry("tictactoe")
    assert found.name == "tic-tac-toe" and found.builtin
    assert found.value == "protocols.tic_tac_toe.rules:GAME"


@pytest.mark.parametrize("blue", [True, False])
def test_the_course_form_plays_a_course_style_bot_unchanged(blue: bool, tmp_path: Path) -> None:
    (tmp_path / "player.py").write_text(COURSE_STYLE_BOT)
    course = f"{sys.executable} player.py"
    opponent = "builtin:search --seed 3 --movetime 0.05"
    p1, p2 = (course, opponent) if blue else (opponent, course)
    done = referee("tictactoe", "-p1", p1, "-p2", p2, "-nr", "--record", "g.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    record = read_record(tmp_path / "g.jsonl")
    assert record.header.game == "tic-tac-toe"
    assert record.result is not None and not record.result.reason.is_bot_fault
    assert record.result.reason.value == "game-ending", record.result.detail
    assert verify_record(record).ok
    side = Side.BLUE if blue else Side.ORANGE
    mine = [p for p in record.plies if p.side is side]
    assert mine and all(p.received == p.move.upper() and len(p.move) == 2 for p in mine)
    # The search bot reads the whole game: the course bot, which takes the first free square,
    # never beats it.
    assert record.result.winner is not side


def test_tic_tac_toe_notation_is_the_course_notation() -> None:
    game = get_game("tictactoe")
    assert canonical_name("TicTacToe") == "tic-tac-toe"
    assert normalise_argv(["tictactoe", "-p1", "a", "-p2", "b"])[:2] == ["play", "tictactoe"]
    state = game.initial_state(None)
    assert sorted(game.format_move(m) for m in game.legal_moves(state)) == [
        f"{c}{r}" for c in "abc" for r in "123"
    ]
    assert game.format_move(game.parse_move(state, " B2 ")) == "b2"
    for bad in ("b4", "d1", "b 2", "2b", "b22"):
        with pytest.raises(BadSyntax):
            game.parse_move(state, bad)
    state = game.apply(state, game.parse_move(state, "b2"))
    with pytest.raises(IllegalMove, match="already taken"):
        game.parse_move(state, "b2")


def play_lines(lines: list[str]) -> Any:
    game = get_game("tic-tac-toe")
    state = game.initial_state(None)
    for line in lines:
        state = game.apply(state, game.parse_move(state, line))
    return game.outcome(state)


@pytest.mark.parametrize(
    ("moves", "winner"),
    [
        (["a1", "a2", "b1", "b2", "c1"], Side.BLUE),  # a row
        (["a1", "b1", "a2", "b2", "c3", "b3"], Side.ORANGE),  # a column
        (["a1", "a2", "b2", "a3", "c3"], Side.BLUE),  # a diagonal
        (["c1", "a1", "b2", "a2", "a3"], Side.BLUE),  # the other diagonal
    ],
)
def test_three_in_a_row_wins(moves: list[str], winner: Side) -> None:
    outcome = play_lines(moves)
    assert outcome.winner is winner and outcome.ending == "three-in-a-row"


def test_a_full_board_is_a_draw() -> None:
    outcome = play_lines(["a3", "b2", "c3", "b3", "b1", "a1", "a2", "c2", "c1"])
    assert outcome.winner is None and outcome.ending == "board-full"
