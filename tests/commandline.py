"""Run the `referee` command: as a user would (a subprocess, its output captured), or the same
command line in this test process (`referee_here`), which skips the start of an interpreter and
the import of the referee for each call.

Use the subprocess where the process itself is what is tested: exit codes from signals, Ctrl-C,
`exit_at_once`, stdout and stderr as a shell sees them, the start-up imports, the course
referee's command forms. Everything else (arguments, messages, results, refusals) runs here.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from referee.cli import run_command

WIDTH = 80  # what rich gives a command whose output is a pipe and who has no COLUMNS


def referee(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m referee ARGS` in `cwd`; returns the finished process with text output."""
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@dataclass(frozen=True)
class Ran:
    """A command line run in this process: what `referee` names the same way on a process."""

    returncode: int
    stdout: str
    stderr: str


def referee_here(*args: str, cwd: Path, width: int = WIDTH) -> Ran:
    """`referee ARGS` run in this process with `cwd` as the working folder (restored after):
    its exit code and what it wrote to stdout and stderr, as plain text `width` columns wide.
    A test that is itself async cannot use it (a command runs trio of its own)."""
    out, err = io.StringIO(), io.StringIO()
    # As `referee` writes into a pipe: no colour, no terminal, each message one line, whole.
    consoles = (
        Console(file=file, width=width, soft_wrap=True, color_system=None, force_terminal=False)
        for file in (out, err)
    )
    before = Path.cwd()
    os.chdir(cwd)
    try:
        # What does not go through the consoles goes here too: argparse's usage and help,
        # JSON events, referee errors.
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = run_command(list(args), *consoles)[0]
            except SystemExit as exit_:  # argparse: --help, --version, a usage error
                code = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
    finally:
        os.chdir(before)
    return Ran(code, out.getvalue(), err.getvalue())
