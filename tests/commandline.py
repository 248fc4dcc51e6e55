"""Run the `referee` command as a user would: a subprocess, its output captured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def referee(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m referee ARGS` in `cwd`; returns the finished process with text output."""
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
