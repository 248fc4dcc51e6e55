"""Step through a replay in the terminal: keys move between plies, or it plays at a set speed.

Keys: → l n (next), ← h p (back), Home g (start), End G (end), space (play/pause), + and -
(faster/slower), q Esc Ctrl-D (quit). The loop waits on the keyboard (with the animation step as
the timeout while playing), so an idle replay uses no CPU. Every key of a read counts: keys typed
ahead, held down or pasted arrive together, and five `l` move five plies.
"""

from __future__ import annotations

import codecs
import os
import re
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
from referee.views.console import has_colour, replay_frame

HELP = "→/l next  ←/h back  g/G start/end  space play/pause  +/- speed  q quit"
_KEYS = {
    "\x1b[C": "next", "\x1bOC": "next", "l": "next", "n": "next",
    "\x1b[D": "back", "\x1bOD": "back", "h": "back", "p": "back",
    "\x1b[H": "start", "\x1bOH": "start", "\x1b[1~": "start", "g": "start",
    "\x1b[F": "end", "\x1bOF": "end", "\x1b[4~": "end", "G": "end",
    " ": "toggle", "+": "faster", "=": "faster", "-": "slower",
    "q": "quit", "\x1b": "quit", "\x03": "quit", "\x04": "quit",
}  # fmt: skip
# One key as a terminal sends it: a CSI sequence (ESC [ parameters, final byte), an SS3 one (ESC O
# and a letter: the arrows in application mode), or one character (a lone ESC is the Esc key).
_KEY = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1bO[A-Za-z]|.", re.DOTALL)
# A sequence cut off by the end of a read: it is finished by the next read.
_UNFINISHED = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|O)\Z")
END_OF_INPUT = "\x04"


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

    def press(self, keys: list[str]) -> bool:
        """Carry out keys in the order they were typed; False at the first that quits."""
        return all(self.apply(_KEYS.get(key, "")) for key in keys)


@contextmanager
def cbreak(fd: int) -> Iterator[None]:
    """Keys arrive as typed (no line editing) and unechoed; the terminal is restored on every exit
    path."""
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def split_keys(text: str) -> tuple[list[str], str]:
    """The keys in `text`, and what is left of an escape sequence its end cut short."""
    cut = _UNFINISHED.search(text)
    end = cut.start() if cut else len(text)
    return _KEY.findall(text[:end]), text[end:]


class Keyboard:
    """The keys typed on a terminal, every one of them, however many a read brings."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.pending = ""  # the start of an escape sequence whose rest is still to come

    def read(self, timeout: float | None) -> list[str] | None:
        """The keys typed since the last read (waiting for some), or None when `timeout` passes
        first. A terminal that went away reads as Ctrl-D, so the replay ends."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return None
        try:
            data = os.read(self.fd, 1024)
        except OSError:
            data = b""
        if not data:
            return [END_OF_INPUT]
        keys, self.pending = split_keys(self.pending + self.decoder.decode(data))
        return keys


def _view(replay: Replay, cursor: Cursor, console: Console) -> Group:
    state = f"playing, {cursor.speed:g} s per ply" if cursor.playing else "paused"
    frame = replay_frame(replay, cursor.ply, console.width, has_colour(console))
    return Group(frame, Text(f"{HELP}   [{state}]", style="dim"))


def run_interactive(console: Console, replay: Replay, start: int, speed: float, play: bool) -> None:
    """The keyboard-driven replay; returns when the user quits."""
    cursor = Cursor(ply=start, last=len(replay.frames) - 1, playing=play, speed=speed)
    keyboard = Keyboard(sys.stdin.fileno())
    with (
        cbreak(keyboard.fd),
        Live(_view(replay, cursor, console), console=console, auto_refresh=False) as live,
    ):
        while True:
            keys = keyboard.read(cursor.speed if cursor.playing else None)
            if keys is None:  # the animation's tick
                cursor.apply("next")
                cursor.playing = cursor.ply < cursor.last
            elif not cursor.press(keys):
                return
            live.update(_view(replay, cursor, console), refresh=True)


def run_animation(console: Console, replay: Replay, start: int, speed: float) -> None:
    """Play from `start` to the end at `speed` seconds per ply, without the keyboard."""
    width, colour = console.width, has_colour(console)
    first = replay_frame(replay, start, width, colour)
    with Live(first, console=console, auto_refresh=False) as live:
        for ply in range(start + 1, len(replay.frames)):
            time.sleep(speed)
            live.update(replay_frame(replay, ply, width, colour), refresh=True)
