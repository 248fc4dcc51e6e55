"""Step through a replay in the terminal: keys move between plies, or it plays at a set speed.

Keys: → l n (next), ← h p (back), Home g (start), End G (end), space (play/pause), + and -
(faster/slower), q Esc (quit). The loop waits on the keyboard (with the animation step as the
timeout while playing), so an idle replay uses no CPU.
"""

from __future__ import annotations

import os
import select
import sys
import termios
import time
import tty
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from rich.console import Console, Group
from rich.live import Live
from rich.text import Text

from referee.replay import Replay
from referee.views.console import replay_frame

HELP = "→/l next  ←/h back  g/G start/end  space play/pause  +/- speed  q quit"
_KEYS = {
    "\x1b[C": "next", "l": "next", "n": "next",
    "\x1b[D": "back", "h": "back", "p": "back",
    "\x1b[H": "start", "\x1b[1~": "start", "g": "start",
    "\x1b[F": "end", "\x1b[4~": "end", "G": "end",
    " ": "toggle", "+": "faster", "=": "faster", "-": "slower",
    "q": "quit", "\x1b": "quit", "\x03": "quit",
}  # fmt: skip


@dataclass
class Cursor:
    """Where the replay is and whether it is playing."""

    ply: int
    last: int
    playing: bool
    speed: float  # seconds per ply

    def apply(self, action: str) -> bool:
        """Carry out a key's action; False when the user quits."""
        if action == "quit":
            return False
        if action == "next":
            self.ply = min(self.ply + 1, self.last)
        elif action == "back":
            self.ply = max(self.ply - 1, 0)
        elif action in ("start", "end"):
            self.ply = 0 if action == "start" else self.last
        elif action == "toggle":
            self.playing = not self.playing
            if self.playing and self.ply == self.last:
                self.ply = 0
        elif action in ("faster", "slower"):
            self.speed = max(0.02, self.speed * (0.5 if action == "faster" else 2.0))
        return True


@contextmanager
def cbreak(fd: int) -> Iterator[None]:
    """Keys arrive one at a time and unechoed; the terminal is restored on every exit path."""
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def read_key(fd: int, timeout: float | None) -> str | None:
    """One key (escape sequences whole), or None when `timeout` passes first."""
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return None
    return os.read(fd, 8).decode("utf-8", errors="replace")


def _view(replay: Replay, cursor: Cursor, width: int) -> Group:
    state = f"playing, {cursor.speed:g} s per ply" if cursor.playing else "paused"
    return Group(replay_frame(replay, cursor.ply, width), Text(f"{HELP}   [{state}]", style="dim"))


def run_interactive(console: Console, replay: Replay, start: int, speed: float, play: bool) -> None:
    """The keyboard-driven replay; returns when the user quits."""
    cursor = Cursor(ply=start, last=len(replay.frames) - 1, playing=play, speed=speed)
    fd = sys.stdin.fileno()
    with (
        cbreak(fd),
        Live(_view(replay, cursor, console.width), console=console, auto_refresh=False) as live,
    ):
        while True:
            key = read_key(fd, cursor.speed if cursor.playing else None)
            if key is None:  # the animation's tick
                cursor.apply("next")
                cursor.playing = cursor.ply < cursor.last
            elif not cursor.apply(_KEYS.get(key, "")):
                return
            live.update(_view(replay, cursor, console.width), refresh=True)


def run_animation(console: Console, replay: Replay, start: int, speed: float) -> None:
    """Play from `start` to the end at `speed` seconds per ply, without the keyboard."""
    width = console.width
    with Live(replay_frame(replay, start, width), console=console, auto_refresh=False) as live:
        for ply in range(start + 1, len(replay.frames)):
            time.sleep(speed)
            live.update(replay_frame(replay, ply, width), refresh=True)
