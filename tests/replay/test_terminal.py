"""`referee replay` on a real terminal (a pseudo-terminal): step with keys, jump, quit."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from referee.views.replay_terminal import Cursor, split_keys
from tests.replay.make_records import random_record

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """A program on a pseudo-terminal; `wait_for` reads its screen output until a text shows."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.master, slave = os.openpty()
        env = {**os.environ, "COLUMNS": "130", "LINES": "50", "TERM": "xterm-256color"}
        self.process = subprocess.Popen(
            argv, cwd=cwd, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True
        )
        os.close(slave)
        self.seen = ""
        self.read_up_to = 0  # where the last text waited for ended: the next is looked for after

    def wait_for(self, pattern: str, timeout: float = 30) -> str:
        """The first `pattern` after the last text waited for. Not only in output that comes
        after this call: a text may arrive in the same screen as the one waited for before it
        (the last ply and the result are drawn together)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.compile(pattern).search(self.seen, self.read_up_to)
            if found:
                self.read_up_to = found.end()
                return found.group(0)
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:  # the program ended
                    break
                self.seen += ANSI.sub("", chunk)
        raise AssertionError(f"{pattern!r} never appeared; last output: {self.seen[-2000:]!r}")

    def press(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> int:
        try:
            return self.process.wait(timeout=30)
        finally:
            os.close(self.master)


def test_keys_step_jump_and_quit(tmp_path: Path) -> None:
    record = random_record(tmp_path / "g.jsonl", "lasker-morris", 3)
    last = len(record.plies)
    terminal = Terminal([sys.executable, "-m", "referee", "replay", "g.jsonl"], tmp_path)
    try:
        terminal.wait_for(rf"ply 0 of {last}")
        terminal.press("l")
        terminal.wait_for(rf"ply 1 of {last}")
        terminal.press("\x1b[C")  # the right arrow
        terminal.wait_for(rf"ply 2 of {last}")
        terminal.press("h")
        terminal.wait_for(rf"ply 1 of {last}")
        terminal.press("G")
        terminal.wait_for(rf"ply {last} of {last}")
        terminal.wait_for(r"by too-few-stones|by no-capture-limit|by repetition|by no-legal-move")
        terminal.press("q")
        terminal.wait_for(r"verified: lasker-morris")
    finally:
        code = terminal.close()
    assert code == 0


def test_keys_that_arrive_together_all_count(tmp_path: Path) -> None:
    record = random_record(tmp_path / "g.jsonl", "lasker-morris", 3)
    last = len(record.plies)
    assert last > 8
    terminal = Terminal([sys.executable, "-m", "referee", "replay", "g.jsonl"], tmp_path)
    try:
        terminal.wait_for(rf"ply 0 of {last}")
        terminal.press("lllll")  # one write: the replay reads them together
        terminal.wait_for(rf"ply 5 of {last}")
        terminal.press("\x1b[C\x1b[C\x1b[Ch")  # three right arrows and one step back
        terminal.wait_for(rf"ply 7 of {last}")
        terminal.press("hq")  # a step back and the quit, in one read
        terminal.wait_for(r"verified: lasker-morris")
    finally:
        assert terminal.close() == 0


def test_split_keys_finds_every_key_and_keeps_a_cut_sequence() -> None:
    assert split_keys("lllll") == (["l"] * 5, "")
    assert split_keys("\x1b[Cl\x1bOD\x1b[4~ \x1b") == (
        ["\x1b[C", "l", "\x1bOD", "\x1b[4~", " ", "\x1b"],
        "",
    )
    assert split_keys("l\x1b[") == (["l"], "\x1b[")  # the rest of the arrow comes next read
    assert split_keys("\x1b[" + "C") == (["\x1b[C"], "")


def test_space_plays_to_the_end(tmp_path: Path) -> None:
    record = random_record(tmp_path / "g.jsonl", "alak", 2)
    last = len(record.plies)
    argv = [sys.executable, "-m", "referee", "replay", "g.jsonl", "--speed", "0.02"]
    terminal = Terminal(argv, tmp_path)
    try:
        terminal.wait_for(r"paused")
        terminal.press(" ")
        terminal.wait_for(rf"ply {last} of {last}")
        terminal.press("q")
    finally:
        assert terminal.close() == 0


def test_cursor_stays_in_range_and_speeds_change() -> None:
    cursor = Cursor(ply=0, last=3, playing=False, speed=0.8)
    for action, ply in [("back", 0), ("next", 1), ("end", 3), ("next", 3), ("start", 0)]:
        assert cursor.apply(action)
        assert cursor.ply == ply
    cursor.apply("end")
    cursor.apply("toggle")  # playing from the end starts over
    assert cursor.playing and cursor.ply == 0
    cursor.apply("faster")
    assert cursor.speed == 0.4
    cursor.apply("slower")
    cursor.apply("slower")
    assert cursor.speed == 1.6
    assert cursor.apply("quit") is False
