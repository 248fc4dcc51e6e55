"""Fixtures of the isolation tests: an arena per isolation level, skipped where unavailable."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.isolation.arena import LEVELS, Arena, bot_python, has, skip_unless_available


@pytest.fixture(params=LEVELS)
def arena(request: pytest.FixtureRequest) -> Iterator[Arena]:
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
