"""A group-stage tournament (the course's file) killed with SIGKILL mid-stage, and at the very
end of a stage, then run again: it ends with exactly the results of a run never interrupted,
every game played once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

COURSE = """\
game = "tictactoe"

[settings]
timeout = 3
random_assignment = true

[agents]
player1 = "builtin:random --seed {{seed}}"
player2 = "builtin:random --seed {{seed}}"
player3 = "builtin:greedy --seed {{seed}}"
player4 = "builtin:random --seed {{seed}}"
player5 = "builtin:random --seed {{seed}}"
player6 = "builtin:greedy --seed {{seed}}"
player7 = "builtin:random --seed {{seed}}"
player8 = "builtin:random --seed {{seed}}"

[referee]
seed = 17
concurrency = 2
directory = "{directory}"
match = {{ isolation = {{ level = "basic+root" }} }}
"""
FIRST_STAGE = 24  # two groups of four, every pairing once with each colour


def referee(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "referee", *args],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def course_file(tmp_path: Path, directory: str) -> Path:
    path = tmp_path / f"{directory}.toml"
    path.write_text(COURSE.format(directory=directory))
    return path


def run_to_end(tmp_path: Path, path: Path) -> None:
    proc = referee("tournament", "run", str(path), "--quiet", cwd=tmp_path)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err


def kill_after(tmp_path: Path, path: Path, games: int) -> int:
    proc = referee("tournament", "run", str(path), "--quiet", "--events", cwd=tmp_path)
    assert proc.stdout is not None
    done = 0
    for line in proc.stdout:
        event = json.loads(line)
        done += event["event"] == "game-finished" and event["result"] != "void"
        if done == games:
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.communicate(timeout=120)
    return proc.returncode


def results(tmp_path: Path, path: Path, fmt: str = "json") -> str:
    proc = referee("tournament", "results", str(path), "--format", fmt, cwd=tmp_path)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return out


def played(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (g["number"], g["blue"], g["orange"], g["winner"], g["reason"], g["plies"])
        for g in report["games"]
    ]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """The tournament run once without a kill (its JSON results and course CSV): what every
    interrupted run must end as, played once for all of them."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    whole = course_file(folder, "whole")
    run_to_end(folder, whole)
    expected = json.loads(results(folder, whole))
    assert expected["plan"]["finished"]
    return expected, results(folder, whole, "course-csv")


@pytest.mark.slow
@pytest.mark.parametrize("games", [FIRST_STAGE, FIRST_STAGE + 5], ids=["stage-end", "mid-stage"])
def test_a_killed_group_stage_tournament_ends_as_an_uninterrupted_one(
    tmp_path: Path, games: int, uninterrupted: tuple[dict[str, Any], str]
) -> None:
    expected, expected_csv = uninterrupted

    cut = course_file(tmp_path, "cut")
    assert kill_after(tmp_path, cut, games) == -signal.SIGKILL
    partial = json.loads(results(tmp_path, cut))
    assert not partial["plan"]["finished"]
    assert games <= partial["counts"]["finished"] < len(expected["games"])

    run_to_end(tmp_path, cut)
    resumed = json.loads(results(tmp_path, cut))
    assert played(resumed) == played(expected)  # the same games with the same results
    before = {g["number"] for g in partial["games"] if g["state"] == "finished"}
    for game in resumed["games"]:  # a game finished before the kill was never played again
        assert game["attempts"] == 1 or game["number"] not in before
    assert resumed["plan"] == expected["plan"]  # the same groups, tables, finals and order
    assert resumed["standings"] == expected["standings"]
    assert results(tmp_path, cut, "course-csv") == expected_csv
