"""`referee doctor`: the machine's isolation, a trial bot at the level `auto` picks, and a warning
when another distribution's package stands in for one of the referee's generic top-level names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def doctor(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", "doctor"],
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_doctor_proves_its_level_with_a_trial_bot(tmp_path: Path) -> None:
    done = doctor(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "auto chooses:" in done.stdout
    assert "trial bot:" in done.stdout
    assert "not the referee's own" not in done.stdout


def test_a_foreign_bots_package_on_the_path_is_named(tmp_path: Path) -> None:
    foreign = tmp_path / "elsewhere" / "bots"
    foreign.mkdir(parents=True)
    (foreign / "__init__.py").write_text("")
    done = doctor(tmp_path, PYTHONPATH=str(foreign.parent))
    assert done.returncode == 1, done.stdout + done.stderr
    said = " ".join(done.stdout.split())
    assert f"`import bots` loads {foreign}, not the referee's own bots package" in said, said
    assert "`import protocols`" not in said
