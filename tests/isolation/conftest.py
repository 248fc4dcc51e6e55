"""Fixtures of the isolation tests: an arena per isolation level, skipped where unavailable."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator

import pytest

from referee.isolation import levels, native
from tests.isolation.arena import LEVELS, Arena, bot_python, has, skip_unless_available


@pytest.fixture(params=["native", "python"])
def helper(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each bot's supervisor and launcher: the compiled helper (`referee/isolation/helper.c`,
    the default wherever a C compiler is found; this machine must have one) or the Python
    programs it stands in for. Both must contain a bot the same way."""
    kind: str = request.param
    if kind == "python":
        monkeypatch.setenv("REFEREE_NATIVE_HELPER", "0")  # for referees started as processes
        monkeypatch.setattr(native, "native_helper", lambda: None)
        # What this process detects without the helper must not outlive the test: a later test
        # of the same worker would be handed a machine without it.
        levels.detect.cache_clear()
        request.addfinalizer(levels.detect.cache_clear)
    else:
        assert native.native_helper() is not None, "the helper did not compile (is there a cc?)"
    return kind


@pytest.fixture(params=LEVELS)
def arena(request: pytest.FixtureRequest, helper: str) -> Iterator[Arena]:
    level: str = request.param
    skip_unless_available(level)
    needs = getattr(request.function, "isolation_needs", None)
    if needs is not None and not any(has(level, feature) for feature in needs[0]):
        pytest.skip(needs[1])
    stage = Arena(level, bot_python(level))
    try:
        yield stage
    finally:
        stage.cleanup()


@pytest.fixture
def users_level() -> None:
    """Skip, with the reason, where bots cannot get users of their own."""
    skip_unless_available("users")


@pytest.fixture
def sandbox_level() -> None:
    """Skip, with the reason, where bots cannot be sandboxed."""
    skip_unless_available("sandbox")


@pytest.fixture
def cgroup_level() -> None:
    """Skip, with the reason, where bots cannot get cgroups."""
    skip_unless_available("cgroup")


@pytest.fixture(params=["without-bubblewrap", "with-bubblewrap"])
def sandbox_program(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """Without bubblewrap (hidden: this process detects the machine again without it), the
    compiled helper makes the sandbox; with it, bubblewrap does, asked for by name."""
    if request.param == "with-bubblewrap":
        if shutil.which("bwrap") is None:
            pytest.skip("bubblewrap is not installed here (Debian package bubblewrap)")
        yield "bubblewrap"
        return
    monkeypatch.setattr(levels, "find_bwrap", lambda: (None, "bwrap is not installed (hidden)"))
    levels.detect.cache_clear()
    try:
        yield "auto"
    finally:
        levels.detect.cache_clear()


ROOT_SETUPS = ["auto-helper", "auto-bubblewrap", "users+cgroup", "basic+root"]


@pytest.fixture(params=ROOT_SETUPS)
def root_stage(
    request: pytest.FixtureRequest, helper: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Arena]:
    """An arena of a root referee: the default level (the compiled helper's sandbox, with
    bubblewrap hidden; or bubblewrap's), `users+cgroup`, or `basic+root`."""
    if os.geteuid() != 0:
        pytest.skip("these levels need a root referee")
    setup: str = request.param
    if setup == "auto-bubblewrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed here (Debian package bubblewrap)")
    if setup == "auto-helper":
        monkeypatch.setattr(levels, "find_bwrap", lambda: (None, "bwrap is not installed"))
    levels.detect.cache_clear()
    # Also when the level is skipped below: a detection without bubblewrap must not be kept.
    request.addfinalizer(levels.detect.cache_clear)
    level = "auto" if setup.startswith("auto") else setup
    skip_unless_available("sandbox+users" if level == "auto" else level.removesuffix("+root"))
    program = "bubblewrap" if setup == "auto-bubblewrap" else "auto"
    arena = Arena(level, sys.executable if level == "auto" else bot_python(level), program)
    try:
        yield arena
    finally:
        arena.cleanup()
        levels.detect.cache_clear()
