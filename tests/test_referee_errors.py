"""The suite's guard against referee bugs passing for bad luck: a test in which a game was voided
by a referee error fails, whether the error happened in the test's process or in a referee it
started, unless the test says it provokes one (tests/referee_errors.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INNER = """
import subprocess
import sys

import pytest

from referee.match.errors import report_referee_error

PROVOKE = '''
from referee.match.errors import report_referee_error
try:
    raise RuntimeError("a bug of ours")
except RuntimeError as exc:
    report_referee_error(exc, "a game", None)
'''


def test_unasked_here():
    exec(PROVOKE)


def test_unasked_in_a_referee_it_started():
    subprocess.run([sys.executable, "-c", PROVOKE], check=True, capture_output=True)


@pytest.mark.referee_error
def test_asked():
    exec(PROVOKE)


def test_clean():
    pass
"""


def test_a_referee_error_fails_its_test_unless_the_test_asked_for_it(tmp_path: Path) -> None:
    (tmp_path / "test_inner.py").write_text(INNER)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not the project's options
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.referee_errors", "-q", "-rE",
         "-c", str(tmp_path / "pytest.ini"), str(tmp_path / "test_inner.py")],
        cwd=ROOT,  # where `tests.referee_errors` is found
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    # Every test ran through; the two that did not ask fail at their teardown.
    assert "4 passed, 2 errors" in done.stdout, done.stdout + done.stderr
    errors = [line for line in done.stdout.splitlines() if line.startswith("ERROR ")]
    assert len(errors) == 2
    assert "test_unasked_here" in errors[0] and "test_unasked_in_a_referee_it_started" in errors[1]
    # The short summary repeats each reason only when the terminal is wide enough: count the
    # reasons in the error sections above it.
    sections = done.stdout.split("short test summary info")[0]
    assert sections.count("Failed: a game was voided by a referee error") == 2
    assert sections.count("RuntimeError: a bug of ours") >= 2  # the tracebacks are shown
