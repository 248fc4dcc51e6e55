"""A round robin of built-in bots with fixed seeds played on a cluster (a `local:2` one, and a
scheduler with two workers started as separate processes) gives exactly the schedule, colours,
seeds, moves and standings of the same tournament played on this machine, and every record it
keeps holds under `tournament verify`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cluster.conftest import (
    DaskCluster,
    builtin_config,
    moves,
    results,
    run_to_end,
    same_games,
    verify,
)
from tests.conftest import ReadableFolders


@pytest.fixture(scope="module")
def local_run(readable_folders: ReadableFolders) -> tuple[Path, dict[str, object]]:
    root = readable_folders.mktemp("local")
    path = builtin_config(root / "here.toml", "here")
    run_to_end(path)
    return root / "here", results(path)


def check_same(path: Path, local: tuple[Path, dict[str, object]]) -> None:
    directory, expected = local
    report = results(path)
    assert report["counts"] == {"finished": 12} | {
        k: 0 for k in report["counts"] if k != "finished"
    }
    assert report["standings"] == expected["standings"]
    assert same_games(report) == same_games(expected)  # type: ignore[arg-type]
    assert moves(path.parent / path.stem) == moves(directory)
    verify(path)


def test_local_cluster_plays_the_local_tournament(
    tmp_path: Path, local_run: tuple[Path, dict[str, object]]
) -> None:
    path = builtin_config(tmp_path / "lc.toml", "lc")
    said = run_to_end(path, "--cluster", "local:2")
    assert "cluster: local:2: 2 workers" in " ".join(said.split())
    check_same(path, local_run)


def test_separate_scheduler_and_workers_play_the_local_tournament(
    tmp_path: Path, local_run: tuple[Path, dict[str, object]], dask_cluster: DaskCluster
) -> None:
    path = builtin_config(tmp_path / "sw.toml", "sw")
    # The address from the config this time: `[cluster] address`.
    with path.open("a") as file:
        file.write(f'[cluster]\naddress = "{dask_cluster.address}"\n')
    said = run_to_end(path)
    assert "2 workers, 4 game slots" in " ".join(said.split())
    check_same(path, local_run)
