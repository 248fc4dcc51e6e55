"""Bots written for the course referee are judged as the course judges them: a message after a
game-ending move is kept, not judged; a bot that looks at the wall clock after writing its move
is not stopped mid-way; `referee play` does not freeze at all unless asked (real processes)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from protocols.base import Reason, Side
from referee.isolation import IsolationSettings
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec
from tests.commandline import referee
from tests.games import play_game
from tests.scriptbots import quiet_opening, script_bot

MOVES = quiet_opening(20)  # the 20th quiet ply is a draw by the no-capture limit


def course_bot(tmp_path: Path, name: str, own: list[str], after_last: str | None = None) -> str:
    """Plays its moves; after its last one it prints `after_last` at once (if given)."""
    return script_bot(
        tmp_path,
        name,
        f"""
        MOVES = {own!r}
        AFTER = {after_last!r}
        colour = hear()
        line = colour
        if colour == "orange":
            line = hear()
        while line not in ("END", "") and MOVES:
            say(MOVES.pop(0))
            if not MOVES and AFTER:
                say(AFTER)
            line = hear()
        while line not in ("END", ""):
            line = hear()
        """,
    )


def test_a_message_after_the_drawing_move_is_a_draw_as_in_the_course(tmp_path: Path) -> None:
    blue = course_bot(tmp_path, "blue", MOVES[0::2])
    orange = course_bot(tmp_path, "orange", MOVES[1::2], after_last="Draw_game!")
    for run in range(5):  # the verdict does not depend on how fast the two writes follow
        done = referee(
            "laskermorris", "-p1", blue, "-p2", orange, "--no-random-assignment",
            "--record", str(tmp_path / f"game{run}.jsonl"), cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().splitlines()[-1] == "Game over! Draw!"


async def test_a_bot_that_checks_the_wall_clock_after_its_move_is_not_stopped(
    tmp_path: Path,
) -> None:
    # Blue does 20 ms of bookkeeping after printing its move, then checks how long its turn
    # took; orange thinks for 1 s. Stopping blue right after its answer would make it count
    # orange's time as its own and give up ("Time limit exceeded"); 0.9 s leave the 20 ms room
    # on a busy machine.
    blue = script_bot(
        tmp_path,
        "timed",
        f"""
        MOVES = {MOVES[0::2][:4]!r}
        line = hear()
        while line not in ("END", ""):
            if MOVES:  # out of moves, it keeps reading and never answers
                start = time.monotonic()
                say(MOVES.pop(0))
                busy = time.process_time() + 0.02
                while time.process_time() < busy:
                    pass
                if time.monotonic() - start > 0.9:
                    say("Time limit exceeded")
            line = hear()
        """,
    )
    orange = script_bot(
        tmp_path,
        "slow",
        f"""
        MOVES = {MOVES[1::2][:4]!r}
        hear()
        while (line := hear()) not in ("END", "") and MOVES:
            time.sleep(1.0)
            say(MOVES.pop(0))
        """,
    )
    settings = MatchSettings(
        move_timeout=2.0,
        random_assignment=False,
        isolation=IsolationSettings(level="basic+root"),
        freeze=True,
    )
    record = await play_game(
        "lasker-morris",
        PlayerSpec(name="timed", command=blue),
        PlayerSpec(name="slow", command=orange),
        settings=settings,
    )
    assert record.result is not None
    # Blue ran out of moves after four: it then never answers. Nothing before that went wrong.
    assert (record.result.winner, record.result.reason) == (Side.ORANGE, Reason.TIMEOUT)
    assert len(record.plies) == 8
    assert "Time limit exceeded" not in record.result.bots[Side.BLUE].unasked


def test_play_does_not_freeze_unless_asked(tmp_path: Path) -> None:
    blue = course_bot(tmp_path, "blue", MOVES[0::2])
    orange = course_bot(tmp_path, "orange", MOVES[1::2])
    record = tmp_path / "game.jsonl"
    done = referee("play", "lasker-morris", "-p1", blue, "-p2", orange, "--record", str(record),
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    header = record.read_text().splitlines()[0]
    assert '"freeze":false' in header.replace(" ", "")
    asked = tmp_path / "asked.jsonl"
    done = referee("play", "lasker-morris", "-p1", blue, "-p2", orange, "--record", str(asked),
                   "--freeze", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert '"freeze":true' in asked.read_text().splitlines()[0].replace(" ", "")


@pytest.mark.parametrize("level", ["basic+root", "sandbox+root", "auto"])
def test_play_gives_bots_the_callers_environment(tmp_path: Path, level: str) -> None:
    # A library the bot needs lives on the caller's PYTHONPATH, as with `pip install --target`
    # or a course's helper folder: the course referee passes the environment on, and so does
    # `referee play`, at every level (the folder is readable by other users, as usual).
    library = Path(tempfile.mkdtemp(prefix="course-lib-", dir="/tmp"))
    try:
        library.chmod(0o755)
        (library / "course_helpers.py").write_text("FIRST = 'a'\n")
        (library / "course_helpers.py").chmod(0o644)
        bot = script_bot(
            tmp_path, "needs_lib", "import course_helpers\nhear()\nsay(course_helpers.FIRST)\n"
        )
        env = {**os.environ, "PYTHONPATH": str(library)}
        done = subprocess.run(
            [sys.executable, "-m", "referee", "play", "alak", "-o", "size=5", "-p1", bot,
             "-p2", "builtin:random", "--no-random-assignment", "--isolation", level],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "ModuleNotFoundError" not in done.stderr
        record = next((tmp_path / "referee-games").glob("*.jsonl"))
        plies = [line for line in record.read_text().splitlines() if '"type":"ply"' in line]
        assert '"move":"a"' in plies[0]
    finally:
        shutil.rmtree(library, ignore_errors=True)


def test_a_debug_line_before_the_move_is_named_every_time(tmp_path: Path) -> None:
    # Debug text on stdout, then the move at once: the verdict names the debug line, whatever
    # the timing of the two writes, and never blames the move that followed it.
    chatty = script_bot(tmp_path, "chatty", 'hear()\nsay("thinking: depth 3")\nsay("a")\n')
    for run in range(20):
        record = tmp_path / f"game{run}.jsonl"
        done = referee(
            "play", "alak", "-o", "size=5", "-p1", chatty, "-p2", "builtin:random",
            "--no-random-assignment", "--isolation", "basic+root", "--record", str(record),
            "--json", cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert (result["reason"], result["loser_line"]) == ("bad-syntax", "thinking: depth 3")
