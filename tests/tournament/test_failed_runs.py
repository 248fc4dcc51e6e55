"""A first run refused before its first game (a bot that cannot start, a cluster that cannot be
used) leaves nothing behind: no tournament folder, no store. A tournament that has played keeps
everything when a later run is refused. The folders the referee writes by default are ignored by
git."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.commandline import referee

ROOT = Path(__file__).resolve().parents[2]
CONFIG = """\
name = "cup"
game = "alak"
game_options = {{ size = 5 }}
[match.isolation]
level = "basic+root"
[[players]]
name = "ann"
command = "builtin:random --seed 1"
[[players]]
name = "ben"
command = "{command}"
"""


def write(folder: Path, command: str) -> None:
    (folder / "cup.toml").write_text(CONFIG.format(command=command))


def test_a_refused_pre_flight_leaves_no_tournament_folder(tmp_path: Path) -> None:
    write(tmp_path, "python3 no-such-file.py")
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2 and "not starting the tournament" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cup.toml"]


def test_a_cluster_that_cannot_be_used_leaves_no_tournament_folder(tmp_path: Path) -> None:
    write(tmp_path, "builtin:random --seed 2")
    done = referee("tournament", "run", "cup.toml", "-q", "--cluster", "nowhere", cwd=tmp_path)
    assert done.returncode == 2 and "--cluster" in done.stderr
    no_dask = tmp_path / "no-dask"
    (no_dask / "distributed").mkdir(parents=True)
    (no_dask / "distributed" / "__init__.py").write_text("raise ImportError('not installed')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(no_dask), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "run", "cup.toml", "-q",
         "--cluster", "local:1"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2 and "the cluster needs Dask" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cup.toml", "no-dask"]


def test_a_tournament_that_has_played_keeps_everything_when_a_run_is_refused(
    tmp_path: Path,
) -> None:
    write(tmp_path, "builtin:random --seed 2")
    assert referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path).returncode == 0
    before = sorted(p.name for p in (tmp_path / "cup").iterdir())
    records = sorted((tmp_path / "cup" / "games").iterdir())
    done = referee("tournament", "run", "cup.toml", "-q", "--cluster", "nowhere", cwd=tmp_path)
    assert done.returncode == 2
    assert sorted(p.name for p in (tmp_path / "cup").iterdir()) == before
    assert sorted((tmp_path / "cup" / "games").iterdir()) == records and records


def test_the_default_output_folders_are_ignored_by_git() -> None:
    ignored = (ROOT / ".gitignore").read_text().split()
    for folder in ("referee-games/", "referee-runs/", "referee-demo/", "referee-matches/"):
        assert folder in ignored
