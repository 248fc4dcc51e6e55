"""The benchmarks are run by hand, rarely, and import much of the referee: an import that a
change elsewhere broke would go unseen until someone wants the figures. Each one's `--help`
imports the whole script (its imports are at the top) and parses its arguments, which is
enough to catch that, cheaply."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
BENCHMARKS = sorted(SCRIPTS.glob("bench_*.py"))


def test_there_are_benchmarks_to_check() -> None:
    assert len(BENCHMARKS) >= 10


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda path: path.stem)
def test_a_benchmark_starts(script: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(script), "--help"],
        capture_output=True,
        text=True,
        cwd=script.parent.parent,
        timeout=120,  # against a hang only: an import takes a second or two
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout.lower()
