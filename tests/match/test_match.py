"""Whole matches between script bots, in process: verdicts, framing, records and voided games.

Time control (limits, clocks, lag, output out of turn) is tested on a virtual clock with
in-memory players in `test_time_control.py`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from protocols import get_game
from protocols.base import Reason, Side
from referee.isolation import IsolationSettings
from referee.isolation.limits import Limits
from referee.match import driver
from referee.match.host import choose_host
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec
from referee.records import GameRecord, Result, read_record
from referee.verify import verify_record
from tests.commandline import referee
from tests.games import order_of, play_game
from tests.scriptbots import quiet_opening, script_bot

# The script bots log beside themselves in a private temporary folder: no sandbox around them
# (the isolation levels have tests of their own).
FAST = MatchSettings(
    move_timeout=2.0,
    grace=0.1,
    startup_allowance=2.0,
    exit_grace=0.3,
    isolation=IsolationSettings(level="basic+root"),
)


def scripted(tmp_path: Path, name: str, moves: list[str], after: str = "continue") -> str:
    """A bot that plays `moves` in order and logs every line it receives to `name`.log."""
    log = tmp_path / f"{name}.log"
    return script_bot(
        tmp_path,
        name,
        f"""
        MOVES = {moves!r}
        def log(line):
            with open({str(log)!r}, "a") as f:
                f.write(line + "\\n")
        colour = hear(); log(colour)
        if colour == "blue":
            say(MOVES.pop(0))
        while True:
            line = hear(); log(line)
            if line in ("END", ""):
                break
            if not MOVES:
                {after}
            say(MOVES.pop(0))
        """,
    )


def received(tmp_path: Path, name: str) -> list[str]:
    return (tmp_path / f"{name}.log").read_text().splitlines()


async def play(
    tmp_path: Path, blue_cmd: str, orange_cmd: str, settings: MatchSettings = FAST, **kw: Any
) -> GameRecord:
    record = await play_game(
        "lasker-morris",
        PlayerSpec(name="first", command=blue_cmd),
        PlayerSpec(name="second", command=orange_cmd),
        settings=settings.model_copy(update={"random_assignment": False}),
        record_path=tmp_path / "game.jsonl",
        **kw,
    )
    assert read_record(tmp_path / "game.jsonl") == record
    return record


async def test_twenty_quiet_plies_draw_and_the_last_move_is_forwarded(tmp_path: Path) -> None:
    moves = quiet_opening(20)
    blue = scripted(tmp_path, "blue", moves[0::2])
    orange = scripted(tmp_path, "orange", moves[1::2])
    record = await play(tmp_path, blue, orange)
    assert record.result is not None
    assert (record.result.winner, record.result.reason) == (None, Reason.NO_CAPTURE_LIMIT)
    assert [p.move for p in record.plies] == moves
    # Blue saw its colour, every orange move including the 20th, then END.
    assert received(tmp_path, "blue") == ["blue", *moves[1::2], "END"]
    assert received(tmp_path, "orange") == ["orange", *moves[0::2], "END"]
    assert verify_record(record).ok


async def test_illegal_move_loses_and_is_not_forwarded(tmp_path: Path) -> None:
    blue = scripted(tmp_path, "blue", ["h1 d1 r0", "h1 d1 r0"])
    orange = scripted(tmp_path, "orange", ["h2 a1 r0"])
    record = await play(tmp_path, blue, orange)
    result = record.result
    assert result is not None
    assert (result.winner, result.reason) == (Side.ORANGE, Reason.ILLEGAL_MOVE)
    assert result.loser_line == "h1 d1 r0"
    assert "occupied" in result.detail.lower()
    assert received(tmp_path, "orange") == ["orange", "h1 d1 r0", "END"]
    assert verify_record(record).ok


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("H1 D1 R0", Reason.BAD_SYNTAX),
        ("h1 d1", Reason.BAD_SYNTAX),
        ("h2 d1 r0", Reason.ILLEGAL_MOVE),
    ],
)
async def test_bad_lines_get_their_verdict(tmp_path: Path, line: str, reason: Reason) -> None:
    record = await play(tmp_path, scripted(tmp_path, "b", [line]), scripted(tmp_path, "o", []))
    assert record.result is not None
    assert (record.result.winner, record.result.reason) == (Side.ORANGE, reason)
    assert record.result.loser_line == line


async def test_blank_line_is_bad_syntax(tmp_path: Path) -> None:
    record = await play(tmp_path, scripted(tmp_path, "b", [""]), scripted(tmp_path, "o", []))
    assert record.result is not None and record.result.reason is Reason.BAD_SYNTAX


async def test_crash_at_start_and_unstartable_commands(tmp_path: Path) -> None:
    crash = script_bot(tmp_path, "crash", "sys.exit(4)")
    record = await play(tmp_path, crash, scripted(tmp_path, "o", []))
    assert record.result is not None
    assert (record.result.winner, record.result.reason) == (Side.ORANGE, Reason.CRASH)
    assert "exited with code 4" in record.result.detail
    assert record.result.bots[Side.BLUE].exit_code == 4

    record = await play(tmp_path, scripted(tmp_path, "b", []), "/no/such/bot")
    assert record.result is not None
    assert (record.result.winner, record.result.reason) == (Side.BLUE, Reason.CRASH)
    assert "could not start" in record.result.detail


async def test_two_programs_that_exit_at_once_are_one_verdict_with_no_winner(
    tmp_path: Path,
) -> None:
    dead = "sh -c 'exit 127'"
    for _ in range(3):
        record = await play(tmp_path, dead, dead)
        assert record.result is not None
        assert (record.result.winner, record.result.reason) == (None, Reason.CRASH)
        assert record.result.detail.startswith("neither player could start (blue: ")
        assert "; orange: " in record.result.detail
        assert record.result.detail.count("exited with code 127") == 2


@pytest.mark.referee_error
async def test_a_referee_error_voids_the_game_with_its_traceback_on_stderr_and_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    game = get_game("lasker-morris")

    def broken_apply(state: Any, move: Any) -> Any:
        raise RuntimeError("bug in the rules")

    monkeypatch.setattr(game, "apply", broken_apply)
    blue = scripted(tmp_path, "blue", ["h1 d1 r0"])
    orange = scripted(tmp_path, "orange", [])
    log = tmp_path / "referee.log"
    host = replace(choose_host(FAST.isolation), log=log)
    first, second = (
        PlayerSpec(name="first", command=blue),
        PlayerSpec(name="second", command=orange),
    )
    settings = FAST.model_copy(update={"random_assignment": False})
    order = order_of("lasker-morris", first, second, settings=settings)
    record = await driver.play(order, host, record_path=tmp_path / "game.jsonl")
    assert (
        record.result is not None and record.result == read_record(tmp_path / "game.jsonl").result
    )
    assert record.result.void and record.result.winner is None
    assert record.result.reason is Reason.REFEREE_ERROR
    assert record.result.detail == f"RuntimeError: bug in the rules (traceback in {log})"
    logged = log.read_text()
    assert "referee error in a game of lasker-morris: first vs second:" in logged
    assert "Traceback (most recent call last)" in logged and "in broken_apply" in logged
    traceback = logged.split(":\n", 1)[1]
    assert traceback in capsys.readouterr().err  # the same, on stderr


def test_records_that_name_a_referee_error_referee_fault_still_read(tmp_path: Path) -> None:
    result = {"type": "result", "winner": None, "reason": "referee-fault", "detail": "bug",
              "plies": 0, "void": True, "finished_at": "2025-01-01T00:00:00Z"}  # fmt: skip
    assert Result.model_validate(result).reason is Reason.REFEREE_ERROR
    assert Reason("referee-fault") is Reason.REFEREE_ERROR


async def test_stderr_tail_and_exit_codes_are_recorded(tmp_path: Path) -> None:
    blue = scripted(tmp_path, "blue", ["h1 d1 r0", "h1 d1 r0"])
    orange = script_bot(
        tmp_path,
        "talker",
        """
        hear(); hear()
        sys.stderr.write("thinking hard\\n"); sys.stderr.flush()
        say("h2 a1 r0")
        while hear() not in ("END", ""):
            pass
        sys.exit(0)
        """,
    )
    record = await play(tmp_path, blue, orange)
    assert record.result is not None
    assert record.result.bots[Side.ORANGE].stderr_tail == "thinking hard\n"
    assert record.result.bots[Side.ORANGE].exit_code == 0


async def test_colours_are_seeded_and_no_random_assignment_keeps_p1_blue() -> None:
    p1, p2 = PlayerSpec(name="p1", command="x"), PlayerSpec(name="p2", command="y")
    blues = {
        order_of("lasker-morris", p1, p2, seed=seed).colours()[Side.BLUE].name for seed in range(40)
    }
    assert blues == {"p1", "p2"}
    for seed in range(10):
        first = order_of("lasker-morris", p1, p2, seed=seed).colours()
        assert order_of("lasker-morris", p1, p2, seed=seed).colours() == first
        fixed = order_of(
            "lasker-morris", p1, p2, seed=seed, settings=MatchSettings(random_assignment=False)
        )
        assert fixed.colours()[Side.BLUE] == p1


async def test_record_lines_are_json_with_header_plies_result(tmp_path: Path) -> None:
    moves = quiet_opening(4)
    blue = scripted(tmp_path, "blue", [*moves[0::2], "h1 d1 x9"])
    orange = scripted(tmp_path, "orange", moves[1::2])
    await play(tmp_path, blue, orange, options={"repetition": 0})
    lines = [json.loads(x) for x in (tmp_path / "game.jsonl").read_text().splitlines()]
    assert [x["type"] for x in lines] == ["header", "ply", "ply", "ply", "ply", "result"]
    assert lines[0]["options"]["repetition"] == 0
    assert lines[0]["players"]["blue"]["name"] == "first"
    assert lines[1]["received"] == moves[0] and lines[1]["side"] == "blue"
    assert lines[-1]["reason"] == "bad-syntax" and lines[-1]["winner"] == "orange"


async def test_a_players_own_limits_apply_to_that_player_only(tmp_path: Path) -> None:
    """Blue may write files of 1 MB at most; orange has the match's limits. Both write 2 MB."""
    writer = """
        colour = hear()
        with open(colour + ".bin", "wb") as f:
            f.write(b"x" * 2_000_000)
        if colour == "blue":
            say("h1 d1 r0")
        while hear() not in ("END", ""):
            say("h2 a1 r0")
    """
    blue_dir, orange_dir = tmp_path / "b", tmp_path / "o"
    blue_dir.mkdir()
    orange_dir.mkdir()
    small = Limits(file_size_mb=1)
    record = await play_game(
        "lasker-morris",
        PlayerSpec(name="b", command=script_bot(blue_dir, "w", writer), cwd=blue_dir, limits=small),
        PlayerSpec(name="o", command=script_bot(orange_dir, "w", writer), cwd=orange_dir),
        settings=FAST.model_copy(update={"random_assignment": False}),
        record_path=tmp_path / "game.jsonl",
    )
    assert record.result is not None
    assert (record.result.winner, record.result.reason) == (Side.ORANGE, Reason.RESOURCE_LIMIT)
    # Python ignores SIGXFSZ, so the write fails with EFBIG and the bot dies of the exception;
    # the verdict names the limit and its value.
    assert "exited with code 1: hit the file size limit (1 MB)" in record.result.detail
    assert "File too large" in record.result.bots[Side.BLUE].stderr_tail
    assert (orange_dir / "orange.bin").stat().st_size == 2_000_000
    assert record.header.players[Side.BLUE].limits == small.model_dump()
    assert record.header.players[Side.ORANGE].limits is None


def test_referee_play_a_bot_that_exits_at_once_does_not_win_by_its_opponents_early_line(
    tmp_path: Path,
) -> None:
    # As a course student's bot that is only `sys.exit(3)`, as blue, against a bot that writes
    # a line as soon as it starts, as orange: which failure the referee notices first is chance,
    # and neither wins either way, the crash named in the verdict.
    (tmp_path / "carol.py").write_text("import sys\nsys.exit(3)\n")
    (tmp_path / "bob.py").write_text(
        "import sys\nprint('b2', flush=True)\nfor line in sys.stdin:\n"
        "    if line.strip() == 'END':\n        break\n"
    )
    for attempt in range(2):
        record_path = tmp_path / f"game{attempt}.jsonl"
        done = referee(
            "play", "tic-tac-toe", "-p1", "python3 carol.py", "-p2", "python3 bob.py",
            "--no-random-assignment", "--record", str(record_path), cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "Winner" not in done.stdout, done.stdout
        result = read_record(record_path).result
        assert result is not None
        assert (result.winner, result.reason, result.plies) == (None, Reason.CRASH, 0)
        assert result.detail == (
            "neither player started playing (blue: closed its output: exited with code 3; "
            "orange: wrote a line when it was not its turn)"
        ), result.detail
        assert result.bots[Side.BLUE].exit_code == 3


def test_referee_play_a_finished_games_summary_names_no_mover(tmp_path: Path) -> None:
    done = referee(
        "play", "tic-tac-toe", "-p1", "builtin:random", "-p2", "builtin:random",
        "--no-random-assignment", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Game over! "), done.stdout
    summary = done.stderr[done.stderr.index("tic-tac-toe: ") :]
    assert " plies" in summary and "a b c" in summary, summary  # the title, the board
    assert "to move" not in summary, summary
