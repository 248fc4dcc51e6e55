"""Replays without colour or a terminal (piped, NO_COLOR, TERM=dumb): the sides are told apart
by their letters on every board, the coloured look stays as it was, and no sentence is cut."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import pytest

from protocols.base import Reason
from referee.replay import Replay, load_replay
from referee.views.boards import draw_board
from tests.replay.make_records import GAMES, random_record, record_lines, write_record
from tests.replay.test_replay import square_owners

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
LETTERS = "abcdefghijklmnopqrstuvwxyz"
# The letters of blue and orange where a game has its own (its marks), else B and O.
LETTERS_OF = {"tic-tac-toe": ("X", "O")}


def middle_of_a_game(tmp_path: Path, game: str) -> tuple[Replay, int]:
    path = tmp_path / f"{game}.jsonl"
    random_record(path, game, 1)
    replay = load_replay(path)
    return replay, len(replay.frames) // 2


def square_text(game: str, lines: list[str], square: str, state: Any) -> str:
    """What a plain board shows on one square (the layout of each drawer in boards.py)."""
    if game == "lasker-morris":
        return lines[(7 - int(square[1])) * 2][2 + 4 * "abcdefg".index(square[0])]
    if game == "alak":
        i = LETTERS.index(square)
        return lines[0][3 * i : 3 * i + 3]
    if game == "l-game":
        x, y = (int(v) for v in square.split(","))
        return lines[y][4 * x : 4 * x + 4]
    # the square boards
    cell, height = {"lielow": (4, 8), "tic-tac-toe": (3, 3)}.get(game) or (3, state["height"])
    x, rank = LETTERS.index(square[0]), int(square[1:])
    return lines[1 + height - rank][3 + cell * x : 3 + cell * (x + 1)]


@pytest.mark.parametrize("game", GAMES)
def test_without_colour_each_side_has_its_own_letter(tmp_path: Path, game: str) -> None:
    replay, ply = middle_of_a_game(tmp_path, game)
    state = replay.frames[ply].state
    lines = draw_board(game, state, replay.frames[ply].marks, colour=False).plain.splitlines()
    shown: dict[str, set[str]] = {"blue": set(), "orange": set(), "neutral": set()}
    for square, owner in square_owners(game, state).items():
        shown[owner].add(square_text(game, lines, square, state).strip())
    assert shown["blue"] and shown["orange"]
    blue, orange = LETTERS_OF.get(game, ("B", "O"))
    assert all(blue in text for text in shown["blue"]), shown
    assert all(orange in text for text in shown["orange"]), shown
    assert not shown["blue"] & shown["orange"], (
        shown
    )  # no square of one side looks like the other's
    assert not shown["neutral"] & (shown["blue"] | shown["orange"])


@pytest.mark.parametrize("game", GAMES)
def test_with_colour_the_pieces_keep_their_glyphs(tmp_path: Path, game: str) -> None:
    replay, ply = middle_of_a_game(tmp_path, game)
    state = replay.frames[ply].state
    lines = draw_board(game, state, replay.frames[ply].marks).plain.splitlines()
    for square, owner in square_owners(game, state).items():
        text = square_text(game, lines, square, state).strip()
        if game in LETTERS_OF:  # the game's own marks, with colour or without
            assert text == LETTERS_OF[game][owner == "orange"], (square, text)
        elif owner != "neutral":  # colour tells the sides apart: the same glyph for both
            assert text in ("●", "████") or re.fullmatch(r"\d+♛?", text), (square, text)


def plain_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    return {**env, **extra}


def on_terminal(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run with stdout on a pseudo-terminal 100 columns wide; what it showed, ANSI removed."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 100, 0, 0))
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave
    )
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the program ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert process.wait(timeout=60) == 0
    return ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")).replace("\r\n", "\n")


def board_lines_shown(output: str, board: str) -> bool:
    """Whether every line of `board` is shown, in order, inside the replay's panel."""
    shown = [line.strip("│ ").rstrip() for line in output.splitlines()]
    wanted = [line.strip("│ ").rstrip() for line in board.splitlines()]
    return any(shown[i : i + len(wanted)] == wanted for i in range(len(shown)))


@pytest.mark.parametrize("game", GAMES)
def test_the_replay_command_piped_draws_plain_boards(tmp_path: Path, game: str) -> None:
    replay, ply = middle_of_a_game(tmp_path, game)
    frame = replay.frames[ply]
    argv = [sys.executable, "-m", "referee", "replay", f"{game}.jsonl", "--ply", str(ply)]
    result = subprocess.run(
        argv, cwd=tmp_path, env=plain_env(), capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    plain = draw_board(game, frame.state, frame.marks, colour=False).plain
    assert board_lines_shown(result.stdout, plain), result.stdout


@pytest.mark.parametrize("setting", [{"NO_COLOR": "1", "TERM": "xterm-256color"}, {"TERM": "dumb"}])
def test_a_terminal_without_colour_gets_plain_boards(
    tmp_path: Path, setting: dict[str, str]
) -> None:
    replay, ply = middle_of_a_game(tmp_path, "legionnaires")
    frame = replay.frames[ply]
    argv = [sys.executable, "-m", "referee", "replay", "legionnaires.jsonl", "--ply", str(ply)]
    output = on_terminal(argv, tmp_path, plain_env(**setting))
    plain = draw_board("legionnaires", frame.state, frame.marks, colour=False).plain
    assert board_lines_shown(output, plain), output


def test_a_colour_terminal_keeps_the_coloured_board(tmp_path: Path) -> None:
    replay, ply = middle_of_a_game(tmp_path, "legionnaires")
    frame = replay.frames[ply]
    argv = [sys.executable, "-m", "referee", "replay", "legionnaires.jsonl", "--ply", str(ply)]
    output = on_terminal(argv, tmp_path, plain_env(TERM="xterm-256color"))
    coloured = draw_board("legionnaires", frame.state, frame.marks).plain
    assert board_lines_shown(output, coloured), output


def test_a_long_verdict_is_wrapped_whole_when_piped(tmp_path: Path) -> None:
    lines = record_lines("alak", 1, max_plies=3)  # cut short: a void game
    detail = (
        "orange: no complete line within the time limit; it was itself waiting to read its "
        "input: did you flush stdout after your move?"
    )
    lines[-1] = lines[-1].model_copy(update={"reason": Reason.INTERRUPTED, "detail": detail})
    write_record(tmp_path / "long.jsonl", lines)
    result = subprocess.run(
        [sys.executable, "-m", "referee", "replay", "long.jsonl"],
        cwd=tmp_path, env=plain_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert all(len(line) <= 80 for line in result.stdout.splitlines()), result.stdout
    flat = " ".join(re.sub(r"[\u2500-\u257f]", " ", result.stdout).split())
    assert detail in flat, result.stdout
