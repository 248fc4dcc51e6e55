"""The `referee` command end to end, as course staff and scripts use it (real subprocesses)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from protocols.base import Reason, Side
from referee.bot import BotInfrastructureError
from referee.cli import main
from referee.records import read_record
from referee.verify import verify_record
from tests.commandline import referee, referee_here

COURSE_PLAYER = Path(__file__).with_name("course_player.py")
RULE_ENDINGS = {  # (reason, ending)
    (Reason.NO_CAPTURE_LIMIT, None),
    (Reason.GAME_ENDING, "too-few-stones"),
    (Reason.NO_LEGAL_MOVE, None),
    (Reason.REPETITION, None),
}
RESULT_LINES = {"Game over! Winner: blue", "Game over! Winner: orange", "Game over! Draw!"}


def kill_processes_mentioning(text: str) -> None:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(entry.name), signal.SIGKILL)


def course_bot(seed: int) -> str:
    return f"{sys.executable} {COURSE_PLAYER} {seed}"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_course_command_line_plays_course_bots_to_a_rule_ending(tmp_path: Path, seed: int) -> None:
    proc = referee(
        "laskermorris", "-p1", course_bot(seed), "-p2", course_bot(seed + 100),
        "--seed", str(seed), "--record", "game.jsonl", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] in RESULT_LINES
    record = read_record(tmp_path / "game.jsonl")
    assert record.result is not None
    assert (record.result.reason, record.result.ending) in RULE_ENDINGS, record.result.detail
    verification = verify_record(record)
    assert verification.ok, verification.problems
    expected = {None: "Game over! Draw!"}.get(
        record.result.winner, f"Game over! Winner: {record.result.winner}"
    )
    assert proc.stdout.strip() == expected


def test_every_course_flag_is_accepted(tmp_path: Path) -> None:
    proc = referee(
        "laskermorris", "--player1", course_bot(5), "--player2", course_bot(6),
        "-v", "-nv", "-r", "-nr", "-t", "5", "-l", "-nl", "-d", "-nd", "--port", "8123",
        "--record", "g.jsonl", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    record = read_record(tmp_path / "g.jsonl")
    # -nr (given last) makes player 1 blue.
    assert record.header.players["blue"].command.endswith("course_player.py 5")


def test_play_json_and_builtin_bots(tmp_path: Path) -> None:
    proc = referee(
        "play", "lasker-morris", "-p1", "builtin:random --seed 1", "-p2", "builtin:random --seed 2",
        "--seed", "9", "--json", "--record", "r.jsonl", "--log", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    record = read_record(tmp_path / "r.jsonl")
    assert record.result is not None
    assert payload["reason"] == record.result.reason.value
    assert payload["winner"] == (record.result.winner and record.result.winner.value)
    assert payload["plies"] == len(record.plies)
    assert " 1 blue" in proc.stderr  # --log shows the moves as they are played


def test_no_repetition_is_recorded(tmp_path: Path) -> None:
    proc = referee(
        "play", "lasker-morris", "-p1", "builtin:random", "-p2", "builtin:random",
        "--no-repetition", "--record", "r.jsonl", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert read_record(tmp_path / "r.jsonl").header.options["repetition"] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess", "-p1", "a", "-p2", "b"], "unknown game"),
        (["play", "lasker-morris", "-p1", "a"], "-p2"),
        (["play", "lasker-morris", "-p1", "a", "-p2", "b", "-o", "colour=red"], "colour"),
        (["play", "lasker-morris", "-p1", "a", "-p2", "b", "-t", "-1"], "-t/--timeout"),
    ],
)
def test_usage_errors_exit_2_with_a_clear_message(
    tmp_path: Path, args: list[str], message: str
) -> None:
    proc = referee_here(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_killed_referee_leaves_every_played_move_on_disk(tmp_path: Path) -> None:
    # The player's program beside the wrapper: a contained bot sees its own folder, not the
    # test suite's (which may live under /tmp, private in the sandbox).
    player = tmp_path / COURSE_PLAYER.name
    player.write_text(COURSE_PLAYER.read_text())
    slow = tmp_path / "slow.py"
    slow.write_text(
        f"import time, runpy, sys\nsys.argv = ['x', sys.argv[1]]\n"
        f"import builtins\n_print = builtins.print\n"
        f"def print(*a, **k):\n    time.sleep(0.05)\n    _print(*a, **k)\n"
        f"builtins.print = print\nrunpy.run_path({str(player)!r})\n"
    )
    cmd = [
        sys.executable, "-m", "referee", "laskermorris",
        "-p1", f"{sys.executable} {slow} 1", "-p2", f"{sys.executable} {slow} 2",
        "--record", "game.jsonl", "--no-repetition", "-o", "no_capture_limit=0",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    record_path = tmp_path / "game.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if record_path.exists() and record_path.read_text().count('"type":"ply"') >= 6:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    # A referee killed with SIGKILL cannot clean up: its bots (possibly frozen while not on
    # move) are ours to remove.
    kill_processes_mentioning(str(tmp_path))
    record = read_record(record_path)
    assert record.result is None
    assert len(record.plies) >= 6
    assert verify_record(record).ok


def test_play_names_players_and_takes_a_game_clock(tmp_path: Path) -> None:
    record = tmp_path / "named.jsonl"
    done = referee_here(
        "play", "alak", "-o", "size=5", "-p1", "builtin:random", "-p2", "builtin:random",
        "--name1", "ann", "--name2", "ben", "--clock", "30+1.5", "--no-random-assignment",
        "--record", str(record), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    header = read_record(record).header
    assert {p.name for p in header.players.values()} == {"ann", "ben"}
    assert header.players[Side.BLUE].name == "ann"
    assert (header.time_control.clock_total, header.time_control.clock_increment) == (30.0, 1.5)
    bad = referee_here("play", "alak", "-p1", "a", "-p2", "b", "--clock", "x+1", cwd=tmp_path)
    assert bad.returncode == 2 and "not a clock: 'x+1'" in bad.stderr


def test_an_empty_player_command_is_a_usage_error(tmp_path: Path) -> None:
    done = referee_here("play", "lasker-morris", "-p1", "", "-p2", "", cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    assert done.stderr.startswith("usage: referee play ")
    assert "referee play: error: argument -p1/--player1: empty: give the command" in done.stderr
    assert done.stdout == "" and not (tmp_path / "referee-games").exists()


def test_a_folder_against_a_missing_script_is_no_winner(tmp_path: Path) -> None:
    # One command is a folder (it cannot be started at all), the other an interpreter that
    # exits with code 2 before moving, its script not there: neither started playing.
    (tmp_path / "somedir").mkdir()
    missing = f"{sys.executable} nothere2.py"
    for seed in ("1", "2"):  # either colour for each
        done = referee("play", "alak", "-p1", "./somedir", "-p2", missing, "--seed", seed,
                       "--isolation", "basic+root", cwd=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "Game over! No winner!"
        said = " ".join(done.stderr.split())
        assert "No winner (both lose) by crash: neither player could start" in said
        assert "'./somedir' is a directory" in said and "exited with code 2" in said


MACHINE_FAILED = "cannot start a process (fork: Resource temporarily unavailable)"


@asynccontextmanager
async def machine_fails(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
    """`open_bot` on a machine that cannot start another process: nobody's fault."""
    raise BotInfrastructureError(MACHINE_FAILED)
    yield  # an async generator, as `open_bot` is


@pytest.mark.parametrize("as_json", [False, True])
def test_a_void_game_says_so_and_why_and_exits_3(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    as_json: bool,
) -> None:
    monkeypatch.setattr("referee.match.player.open_bot", machine_fails)
    record = tmp_path / "game.jsonl"
    argv = [
        "play",
        "alak",
        "-p1",
        "builtin:random",
        "-p2",
        "builtin:random",
        "--seed",
        "1",
        "--no-random-assignment",
        "--record",
        str(record),
        "--isolation",
        "basic+root",
    ]
    code = main([*argv, "--json"] if as_json else argv)  # fmt: skip
    said = capsys.readouterr()
    assert code == 3, said.err
    if as_json:
        result = json.loads(said.out)
        assert (result["result"], result["void"], result["winner"]) == ("void", True, None)
        assert result["reason"] == "infrastructure"
        assert result["detail"] == f"blue: {MACHINE_FAILED}"
    else:
        assert said.out.strip().splitlines()[-1] == (
            f"Game over! Void by infrastructure: blue: {MACHINE_FAILED}"
        )
        assert "Draw" not in said.out
    written = read_record(record).result
    assert written is not None and written.void and written.reason is Reason.INFRASTRUCTURE


def test_two_bots_that_cannot_start_say_so_with_no_winner(tmp_path: Path) -> None:
    dead = "sh -c 'exit 127'"
    done = referee("play", "lasker-morris", "-p1", dead, "-p2", dead, "--isolation", "basic+root",
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Game over! No winner!"
    assert "No winner (both lose) by crash: neither player could start" in " ".join(
        done.stderr.split()
    )
