"""Faults of a tournament on a cluster, with real processes: a worker killed mid-tournament
voids the games it was playing (infrastructure, naming the worker) and they are replayed on
the other; a coordinator killed mid-tournament resumes with the same command. Either way every
game is finished exactly once and the standings are those of an uninterrupted local run."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from referee.tournament.store import GameState, open_view
from tests.cluster.conftest import (
    folder_config,
    referee,
    results,
    run_to_end,
    same_games,
    start_cluster,
    verify,
    write_bot,
)
from tests.conftest import ReadableFolders

GAMES = 12  # four players, two games per pairing


def bots(root: Path) -> dict[str, Path]:
    folders = {}
    for name in ("ann", "bob", "cid", "dan"):
        folders[name] = root / "bots" / name
        write_bot(folders[name], delay=0.05)
    return folders


def run_until(path: Path, finished: int, *extra: str) -> tuple[Any, list[dict[str, Any]]]:
    """Start the tournament; return the process once `finished` games are finished."""
    proc = referee("tournament", "run", str(path), "--quiet", "--events", *extra, cwd=path.parent)
    assert proc.stdout is not None
    events = []
    done = 0
    for line in proc.stdout:
        events.append(json.loads(line))
        done += events[-1]["event"] == "game-finished" and events[-1]["result"] != "void"
        if done == finished:
            return proc, events
    raise AssertionError(f"the run ended before {finished} games: {proc.communicate()}")


def attempts(directory: Path) -> list[tuple[int, str, str | None]]:
    view = open_view(directory)
    try:
        return [(a.number, a.outcome, a.detail) for a in view.attempts()]
    finally:
        view.close()


def finished_once(directory: Path) -> None:
    outcomes = attempts(directory)
    finished = sorted(number for number, outcome, _ in outcomes if outcome == "finished")
    assert finished == list(range(1, GAMES + 1))  # each game counted exactly once
    view = open_view(directory)
    assert len(view.games(GameState.FINISHED)) == GAMES
    view.close()


@pytest.fixture(scope="module")
def reference(readable_folders: ReadableFolders) -> dict[str, Any]:
    root = readable_folders.mktemp("reference")
    path = folder_config(root / "here.toml", "here", bots(root), concurrency=4)
    run_to_end(path)
    return results(path)


def test_a_killed_worker_voids_its_games_and_they_are_replayed(
    tmp_path: Path, reference: dict[str, Any]
) -> None:
    cluster = start_cluster(tmp_path / "dask")
    try:
        path = folder_config(tmp_path / "kw.toml", "kw", bots(tmp_path), concurrency=4)
        proc, _ = run_until(path, 1, "--cluster", cluster.address)
        os.kill(cluster.workers[1].pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    finally:
        cluster.stop()
    voids = [detail or "" for _, outcome, detail in attempts(tmp_path / "kw") if outcome == "void"]
    lost = [d for d in voids if "died or was lost (worker tcp://127.0.0.1:" in d]
    assert lost, f"the killed worker was playing games: {voids}"
    finished_once(tmp_path / "kw")
    report = results(path)
    assert report["standings"] == reference["standings"]
    assert same_games(report) == same_games(reference)
    verify(path)


def test_a_killed_coordinator_resumes_without_counting_a_game_twice(
    tmp_path: Path, reference: dict[str, Any]
) -> None:
    cluster = start_cluster(tmp_path / "dask")
    try:
        path = folder_config(tmp_path / "kc.toml", "kc", bots(tmp_path), concurrency=4)
        proc, _ = run_until(path, 3, "--cluster", cluster.address)
        proc.kill()
        proc.communicate(timeout=60)
        view = open_view(tmp_path / "kc")
        before = {row.number: row.chain for row in view.games(GameState.FINISHED)}
        view.close()
        assert 3 <= len(before) < GAMES
        said = run_to_end(path, "--cluster", cluster.address)
        assert f"resuming: {len(before)}/{GAMES} games done" in said
    finally:
        cluster.stop()
    finished_once(tmp_path / "kc")
    view = open_view(tmp_path / "kc")
    after = {row.number: row.chain for row in view.games(GameState.FINISHED)}
    view.close()
    assert {n: after[n] for n in before} == before  # never replayed, never rewritten
    report = results(path)
    assert report["standings"] == reference["standings"]
    assert same_games(report) == same_games(reference)
    verify(path)
