"""`referee analyse legionnaires` as a user runs it: a real process, and Ctrl-C in a long run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.commandline import referee


def test_the_command_line_gives_the_value_as_json(tmp_path: Path) -> None:
    done = referee(
        "analyse", "legionnaires", "--width", "2", "--height", "2", "--blue", "a1",
        "--orange", "a2", "--json", cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert (found["value"], found["explicit"], found["positions"]) == ("*", "{0|0}", 3)
    assert found["atomic_weight"] == "0"


def test_no_position_shows_the_papers_layouts_and_how_to_compute_one(tmp_path: Path) -> None:
    done = referee("analyse", "legionnaires", cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    listed = referee("analyse", "legionnaires", "--list-layouts", cwd=tmp_path, timeout=120)
    assert done.stdout == listed.stdout and "start-3x3" in done.stdout
    assert done.stderr.strip() == (
        "these are the paper's positions: compute one with --layout NAME (e.g. referee analyse "
        "legionnaires --layout start-3x3), or give your own with --width, --height, --blue and "
        "--orange"
    )
    assert listed.stderr == ""


def test_a_bad_square_is_a_usage_error(tmp_path: Path) -> None:
    done = referee(
        "analyse", "legionnaires", "--width", "3", "--height", "3", "--blue", "d4",
        "--orange", "a1", cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "blue pawn 'd4' is not a square of the 3x3 board (a1..c3)" in done.stderr
    assert "Traceback" not in done.stderr


def test_ctrl_c_stops_a_long_run_cleanly(tmp_path: Path) -> None:
    # rows-6 reaches 214,734 positions (about 20 s); the interrupt lands while it searches.
    command = [sys.executable, "-m", "referee", "analyse", "legionnaires", "--layout", "rows-6"]
    process = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        time.sleep(5.0)  # well past start-up (under a second), well before the end
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "interrupted after" in err and "positions: no value computed" in err
    assert "Traceback" not in err
    assert out == ""
