"""A bot's cgroup in the v1 `cpu` hierarchy weighs what its referee's niceness does: a referee
run at a lower priority (the arena's game workers) keeps its bots at that priority, which the
kernel would otherwise weigh as a whole group at the usual priority."""

from __future__ import annotations

import subprocess
import sys

import pytest

from referee.isolation.cgroups import find_driver

MAKE_ONE = """
import os, sys, trio
from referee.isolation.cgroups import find_driver
os.nice(int(sys.argv[1]))
driver, _ = find_driver()
group = driver.create()
try:
    print((group.dirs["cpu"] / "cpu.shares").read_text().strip())
finally:
    trio.run(group.remove)
"""


def bot_group_shares(nice: int) -> int:
    """The `cpu.shares` of a bot's cgroup made by a referee at `nice`."""
    done = subprocess.run(
        [sys.executable, "-c", MAKE_ONE, str(nice)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


@pytest.fixture
def cpu_hierarchy(cgroup_level: None) -> None:
    driver, _ = find_driver()
    if driver is None or "cpu" not in driver.parents:
        pytest.skip("bots get no group in a cpu hierarchy here: the kernel weighs their niceness")


@pytest.mark.usefixtures("cpu_hierarchy")
def test_a_bots_cpu_group_weighs_its_referees_niceness() -> None:
    assert bot_group_shares(10) == 110  # the kernel's weight of niceness 10
    assert bot_group_shares(19) == 15
    assert bot_group_shares(0) == 1024  # the usual priority: the default, untouched
