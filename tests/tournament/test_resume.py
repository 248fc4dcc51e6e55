"""Kill the referee in the middle of a real tournament (SIGKILL, or Ctrl-C) and run it again:
nothing finished is lost or played twice, and the final standings are those of a run that was
never interrupted."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.tournament.store import GameState, open_view

CONFIG = """\
name = "resume"
game = "lasker-morris"
seed = 21
games_per_pairing = 2
concurrency = 2
directory = "{directory}"

[[players]]
name = "a"
command = "builtin:random --seed {{seed}}"
[[players]]
name = "b"
command = "builtin:random --seed {{seed}}"
[[players]]
name = "c"
command = "builtin:greedy --seed {{seed}}"
[[players]]
name = "d"
command = "builtin:random --seed 5"
"""


def referee(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "referee", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def config(tmp_path: Path, directory: str) -> Path:
    path = tmp_path / f"{directory}.toml"
    path.write_text(CONFIG.format(directory=directory))
    return path


def run_to_end(tmp_path: Path, path: Path) -> None:
    proc = referee("tournament", "run", str(path), "--quiet", cwd=tmp_path)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err


def results(tmp_path: Path, path: Path) -> dict[str, Any]:
    proc = referee("tournament", "results", str(path), "--format", "json", cwd=tmp_path)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def interrupt_after(tmp_path: Path, path: Path, games: int, sig: signal.Signals) -> tuple[int, str]:
    """Start the tournament, send `sig` once `games` games have finished; the exit code and
    what it said on stderr."""
    proc = referee("tournament", "run", str(path), "--quiet", "--events", cwd=tmp_path)
    assert proc.stdout is not None
    done = 0
    for line in proc.stdout:
        event = json.loads(line)
        done += event["event"] == "game-finished" and event["result"] != "void"
        if done == games:
            os.kill(proc.pid, sig)
            break
    _, said = proc.communicate(timeout=120)
    return proc.returncode, said


def record_hashes(directory: Path) -> dict[int, tuple[int, str]]:
    """Finished games: (attempts, hash of the record) by game number."""
    view = open_view(directory)
    found = {}
    for row in view.games(GameState.FINISHED):
        path = view.record_path(row)
        assert path is not None
        found[row.number] = (row.attempts, hashlib.sha256(path.read_bytes()).hexdigest())
    view.close()
    return found


def same_games(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(g["number"], g["blue"], g["winner"], g["reason"], g["plies"]) for g in report["games"]]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The results of the tournament run once without interruption, for every test to match."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    reference = config(folder, "whole")
    run_to_end(folder, reference)
    expected = results(folder, reference)
    assert expected["counts"]["finished"] == 12
    return expected


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=lambda s: s.name)
def test_a_killed_tournament_resumes_to_the_same_standings(
    tmp_path: Path, sig: signal.Signals, uninterrupted: dict[str, Any]
) -> None:
    expected = uninterrupted

    cut = config(tmp_path, "cut")
    code, said = interrupt_after(tmp_path, cut, 4, sig)
    assert code == (-signal.SIGKILL if sig is signal.SIGKILL else 130)
    if sig is signal.SIGINT:
        assert "run the same command to resume" in " ".join(said.split())
    before = record_hashes(tmp_path / "cut")
    assert 4 <= len(before) < 12
    if sig is signal.SIGINT:  # a clean stop leaves nothing marked running
        view = open_view(tmp_path / "cut")
        assert not view.games(GameState.RUNNING)
        view.close()

    run_to_end(tmp_path, cut)
    after = record_hashes(tmp_path / "cut")
    assert len(after) == 12
    for number, (attempts, digest) in before.items():  # never replayed, never rewritten
        assert after[number] == (attempts, digest) == (1, digest)
    view = open_view(tmp_path / "cut")
    finished_attempts = [a.number for a in view.attempts() if a.outcome == "finished"]
    assert sorted(finished_attempts) == list(range(1, 13))  # each game finished exactly once
    cut_short = {a.number for a in view.attempts() if a.outcome == "cut-short"}
    assert cut_short.isdisjoint(before)
    view.close()

    resumed = results(tmp_path, cut)
    assert resumed["standings"] == expected["standings"]
    assert same_games(resumed) == same_games(expected)
