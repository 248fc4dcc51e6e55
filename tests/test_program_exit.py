"""How the `referee` program ends: `referee play` skips the interpreter's finalization, and still
runs the atexit handlers, flushes what it printed and keeps its exit code; nothing is cut short
when a thread that Python would wait for is still running."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from referee.records import read_record


def run_python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    # Buffered standard streams, as usual: what was printed last must be flushed at the exit.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env,
    )  # fmt: skip


def test_exit_at_once_runs_atexit_flushes_and_keeps_the_code(tmp_path: Path) -> None:
    done = run_python(
        """
        import atexit, sys
        from referee.cli import exit_at_once
        atexit.register(lambda: open("atexit-ran", "w").write("yes"))
        sys.stdout.write("no newline, still buffered")
        sys.stderr.write("said on stderr")
        exit_at_once(3)
        """,
        tmp_path,
    )
    assert done.returncode == 3
    assert done.stdout == "no newline, still buffered" and done.stderr == "said on stderr"
    assert (tmp_path / "atexit-ran").read_text() == "yes"


def test_a_thread_python_waits_for_is_waited_for(tmp_path: Path) -> None:
    done = run_python(
        """
        import sys, threading, time
        from referee import cli

        def late():
            time.sleep(0.3)
            open("thread-finished", "w").write("yes")

        def run_command():
            threading.Thread(target=late).start()
            return 0, type("Args", (), {"exit_at_once": True})()

        cli.run_command = run_command
        cli.program()
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "thread-finished").read_text() == "yes"


def test_a_played_game_keeps_its_output_code_and_record(tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "referee", "laskermorris", "-p1", "builtin:random",
         "-p2", "builtin:random", "-nr", "-nv", "--seed", "3", "--record", str(record)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("Game over!")
    assert f"record: {record}" in done.stderr.replace("\n", "")  # rich may wrap the path
    played = read_record(record)
    assert played.result is not None and len(played.plies) == played.result.plies > 0
