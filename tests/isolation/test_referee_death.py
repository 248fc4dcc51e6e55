"""The referee's death ends its bots: a referee killed with SIGKILL mid-game leaves nothing of
either bot running, frozen or not, at every isolation level this machine offers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.isolation.arena import Arena, leftover_processes

REFEREE = Path(__file__).with_name("referee_to_kill.py")


def test_a_killed_referee_takes_its_bots_with_it(arena: Arena, tmp_path: Path) -> None:
    # Blue moves (and is then frozen) after starting a child that left its process group;
    # orange thinks forever. Then the referee is killed.
    blue = arena.hostile("""
        if os.fork() == 0:
            os.setpgid(0, 0)
            while True:
                pass
        start()
        time.sleep(600)
    """)
    orange = arena.opponent(body="start(); hear(); time.sleep(600)")
    record = tmp_path / "game.jsonl"
    referee = subprocess.Popen(
        [sys.executable, str(REFEREE), arena.level, str(record), *blue, *orange],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and '"ply"' not in _text(record):
            assert referee.poll() is None, referee.stderr.read() if referee.stderr else ""
            time.sleep(0.02)
        assert '"ply"' in _text(record), "blue never moved"
        running = leftover_processes(arena.dirs)
        assert len(running) >= 3, "both bots and blue's child should be running"
        os.kill(referee.pid, signal.SIGKILL)
        referee.wait()
        killed_at = time.monotonic()
        # Gone within milliseconds (docs/isolation.md); the test allows a busy machine 10 s.
        while leftover_processes(arena.dirs) and time.monotonic() - killed_at < 10.0:
            time.sleep(0.01)
        assert leftover_processes(arena.dirs) == [], "bots outlived their referee"
    finally:
        referee.kill()
        referee.wait()


def _text(path: Path) -> str:
    return path.read_text() if path.exists() else ""
