"""Tiny script bots for tests: write a Python program to a file and get the command to run it."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

from protocols import get_game

PRELUDE = """\
import os, sys, time, signal
def say(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()
def hear():
    return sys.stdin.readline().strip()
def note_pid(path=os.environ.get("BOT_PID_FILE")):
    if path:
        with open(path, "a") as f:
            f.write(f"{os.getpid()}\\n")
note_pid()
"""


def quiet_opening(plies: int) -> list[str]:
    """A legal Lasker Morris opening of placements in which nobody closes a mill."""
    game = get_game("lasker-morris")
    state = game.initial_state(None)
    lines = []
    for _ in range(plies):
        move = next(
            m
            for m in game.legal_moves(state)
            if game.format_move(m).startswith("h") and game.format_move(m).endswith("r0")
        )
        lines.append(game.format_move(move))
        state = game.apply(state, move)
    return lines


def script_bot(directory: Path, name: str, body: str) -> str:
    """Write `body` (after a small prelude) to `directory/name.py`; return its command."""
    path = directory / f"{name}.py"
    path.write_text(PRELUDE + textwrap.dedent(body))
    return f"{sys.executable} {path}"


def process_group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is `pgid`."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state != "Z":
            members.append(int(entry))
    return members


def alive(pid: int) -> bool:
    """True if `pid` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"
