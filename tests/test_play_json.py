"""`referee play --json` lists both players under `bots`, also one that could not start: with
what is known of it (it never ran: no exit code, nothing on stderr) and why it could not."""

from __future__ import annotations

import json
from pathlib import Path

from tests.commandline import referee_here


def played(tmp_path: Path, blue: str, orange: str) -> dict[str, dict[str, object]]:
    (tmp_path / "somedir").mkdir()
    done = referee_here(
        "play", "tic-tac-toe", "-p1", blue, "-p2", orange, "-nr", "--json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    bots: dict[str, dict[str, object]] = json.loads(done.stdout)["bots"]
    return bots


def test_a_player_that_could_not_start_is_listed_with_why(tmp_path: Path) -> None:
    bots = played(tmp_path, "./somedir", "builtin:random")
    assert sorted(bots) == ["blue", "orange"]
    assert bots["blue"] == {
        "started": False,
        "not_started": "could not start: './somedir' is a directory, not a program",
        "exit_code": None,
        "killed": False,
        "stderr_tail": "",
        "stderr_bytes": 0,
        "isolation": None,
        "isolation_note": None,
        "unasked": [],
    }
    assert bots["orange"]["started"] is True and bots["orange"]["isolation"] is not None
    assert "not_started" not in bots["orange"]


def test_two_players_that_could_not_start_are_both_listed(tmp_path: Path) -> None:
    bots = played(tmp_path, "./somedir", "./nothere")
    assert [bots[side]["started"] for side in ("blue", "orange")] == [False, False]
    assert bots["blue"]["not_started"] == (
        "could not start: './somedir' is a directory, not a program"
    )
    said = str(bots["orange"]["not_started"])
    assert said.startswith("could not start: ") and "nothere" in said and "somedir" not in said
