"""The bots' side of the protocol: arrival times of lines, the shared loop, the command line."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bots.clock import MoveClock, process_start
from bots.lines import LineReader
from bots.player import play
from protocols.lielow.rules import GAME as LIELOW


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_end, write_end = os.pipe()
    yield read_end, write_end
    for fd in (read_end, write_end):
        with contextlib.suppress(OSError):  # a test may have closed it
            os.close(fd)


def test_a_line_already_waiting_counts_from_when_the_input_was_last_seen_empty(
    pipe: tuple[int, int],
) -> None:
    read_end, write_end = pipe
    empty_since = time.monotonic() - 50.0
    os.write(write_end, b"blue\n")
    line, arrived = LineReader(read_end, empty_since).read_line()
    assert (line, arrived) == ("blue", empty_since)


def test_a_line_waited_for_counts_from_its_arrival(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    written: list[float] = []

    def write_later() -> None:
        time.sleep(0.2)
        written.append(time.monotonic())
        os.write(write_end, b"e2 e3\n")

    thread = threading.Thread(target=write_later)
    before = time.monotonic()
    thread.start()
    line, arrived = LineReader(read_end, before - 50.0).read_line()
    thread.join()
    assert line == "e2 e3"
    assert arrived >= written[0]


def test_mark_empty_moves_the_earliest_arrival_forward(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    reader = LineReader(read_end, 10.0)
    reader.mark_empty(20.0)
    os.write(write_end, b"c\n")
    assert reader.read_line() == ("c", 20.0)


def test_lines_split_and_joined_across_chunks_and_the_end(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    reader = LineReader(read_end, 1.0)
    os.write(write_end, b"orange\ne2 ")
    assert reader.read_line() == ("orange", 1.0)
    reader.mark_empty(2.0)  # ignored: part of a line is still buffered
    os.write(write_end, b"e3\nEND\nlast")
    os.close(write_end)
    assert reader.read_line() == ("e2 e3", 1.0)
    assert reader.read_line() == ("END", 1.0)
    assert reader.read_line() == ("last", 1.0)
    assert reader.read_line()[0] is None


def test_process_start_is_before_now() -> None:
    assert process_start() <= time.monotonic()


def run_loop(lines: str, choose: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = play(LIELOW, None, choose, stdin=io.StringIO(lines), stdout=out, log=err)
    return code, out.getvalue(), err.getvalue()


def first_move(state: Any, clock: MoveClock) -> Any:
    return LIELOW.legal_moves(state)[0]


def test_loop_answers_only_its_own_turns_and_stops_at_end() -> None:
    code, out, _ = run_loop("orange\ne2 e3\nEND\ne3 e5\n", first_move)
    assert code == 0
    assert out == "a7 a8\n"  # one answer, to blue's move; nothing after END


def test_loop_ends_quietly_at_end_of_input() -> None:
    code, out, _ = run_loop("blue\n", first_move)
    assert (code, out) == (0, "a2 a3\n")


def test_loop_rejects_a_bad_colour_line() -> None:
    code, out, err = run_loop("purple\n", first_move)
    assert (code, out) == (2, "")
    assert "purple" in err


def test_a_failing_or_illegal_chooser_still_plays_a_legal_move() -> None:
    def broken(state: Any, clock: MoveClock) -> Any:
        raise RuntimeError("bug")

    code, out, err = run_loop("blue\nEND\n", broken)
    assert (code, out) == (0, "a2 a3\n")
    assert "RuntimeError: bug" in err
    code, out, err = run_loop("blue\nEND\n", lambda state, clock: "not a move")
    assert (code, out) == (0, "a2 a3\n")
    assert "illegal move" in err


def bots_command(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bots", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["perfect", "--game", "lielow"], "only the L game and Alak"),
        (["search", "--game", "chess"], "unknown game"),
        (["search", "--game", "alak", "--options", '{"size": 3}'], "size"),
        (["search", "--game", "lielow", "--movetime", "0"], "more than 0"),
        (["search", "--game", "lielow", "--depth", "0"], "at least 1"),
        (["perfect", "--game", "alak", "--options", '{"size": 12}'], "up to 11 points"),
        (["search", "--game", "alak", "--perfect-alak", "12"], "must be 0..11"),
    ],
)
def test_bad_command_lines_exit_2_with_a_reason(args: list[str], message: str) -> None:
    proc = bots_command(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert proc.stdout == ""


def test_search_bot_writes_only_moves_and_reports_on_stderr_when_asked() -> None:
    proc = bots_command(
        "search", "--game", "alak", "--depth", "2", "--verbose", "--seed", "1",
        stdin="blue\nEND\n",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 1
    assert proc.stdout.strip() in "abcdefghijk"
    assert "depth 2" in proc.stderr
