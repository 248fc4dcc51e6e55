"""A test fails when a game in it was voided by a referee error (`referee-error`): a bug of the
referee's own must never pass for bad luck, nor for a flaky test.

Every referee error, in the test process and in every referee it starts (they inherit the
environment), is also appended to a file of the process's own, named by `REFEREE_ERROR_LOG`
(referee/match/errors.py). After each test, what the test added to it is looked at; a test that
provokes a referee error on purpose says so with `@pytest.mark.referee_error`. The suite's
conftest uses `configure` and the `no_referee_error` fixture; run alone, this file is a pytest
plugin (`-p tests.referee_errors`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.match.errors import ERROR_LOG_ENV

MARK = "referee_error"
LOG = pytest.StashKey[Path]()


def configure(config: pytest.Config) -> None:
    """A fresh error log for this process (an xdist worker's own, not its controller's)."""
    config.addinivalue_line("markers", f"{MARK}: the test provokes a referee error on purpose")
    descriptor, name = tempfile.mkstemp(prefix="referee-errors-", suffix=".log")
    os.close(descriptor)
    os.environ[ERROR_LOG_ENV] = name
    config.stash[LOG] = Path(name)


def unconfigure(config: pytest.Config) -> None:
    if LOG in config.stash:
        config.stash[LOG].unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def no_referee_error(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail the test if a game in it was voided by a referee error it did not ask for."""
    log = request.config.stash[LOG]
    before = log.stat().st_size
    yield
    with log.open("rb") as file:
        file.seek(before)
        added = file.read().decode("utf-8", "replace")
    if added and request.node.get_closest_marker(MARK) is None:
        pytest.fail(f"a game was voided by a referee error (its traceback):\n{added[-6000:]}")


def pytest_configure(config: pytest.Config) -> None:
    configure(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    unconfigure(config)
