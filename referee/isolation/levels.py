"""Isolation levels: what this machine offers, what was asked for, and the level chosen.

The basic level is always there: each bot in its own session and process group, with a minimal
environment, a private scratch directory as HOME and TMPDIR, and resource limits. Three features
add to it where the machine has them, and combine:

- `sandbox`: bubblewrap namespaces (see `referee/sandbox.py`);
- `users`: a user of its own for each running bot, when the referee runs as root
  (see `referee/slots.py`);
- `cgroup`: a control group per bot for memory and process limits on the whole tree, exact CPU
  time, freezing and killing everything at once (see `referee/cgroups.py`).

A level is written as `basic` or as features joined with `+` (`sandbox+users+cgroup`); `auto`
takes every feature available. Asking for a feature the machine lacks is an error that says why
it is missing, never a silent downgrade.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from referee.isolation.bot_users import DEFAULT_UID_BASE, DEFAULT_UID_COUNT
from referee.isolation.cgroups import CgroupDriver, find_driver, probe, sweep_stale
from referee.isolation.sandbox import find_bwrap


class Feature(StrEnum):
    SANDBOX = "sandbox"
    USERS = "users"
    CGROUP = "cgroup"


FEATURE_ORDER = (Feature.SANDBOX, Feature.USERS, Feature.CGROUP)
AUTO = "auto"
BASIC = "basic"


# What makes a missing feature available, said to the user with the reason it is missing.
FIXES = {
    Feature.SANDBOX: "apt-get install bubblewrap (as root), or on another system its bubblewrap "
    "package",
    Feature.USERS: "run the referee as root (it gives each running bot a user of its own)",
    Feature.CGROUP: "run the referee as root on a machine with cgroup v2 (or v1 memory, pids, "
    "cpuacct and freezer hierarchies); in a container, start it with its own cgroup namespace",
}


class IsolationUnavailable(ValueError):
    """A requested isolation feature is not available on this machine."""


class IsolationSettings(BaseModel):
    """How bots are isolated: the level (see the module docstring) and its options."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    level: str = Field(AUTO, description="auto, basic, or features joined by '+'")
    writable_dir: bool = Field(False, description="sandbox: the bot may write its own directory")
    # The environment a bot starts with. `minimal`: PATH, HOME and TMPDIR of its own, LANG and
    # Python's unbuffered output, plus the variables named in `pass_variables`. `caller`: the
    # referee's own environment, as the course referee gives it (HOME and TMPDIR stay the
    # bot's private ones where the caller's cannot be used: in the sandbox, or under a user of
    # its own). Either way, in the sandbox the caller's user site-packages and active
    # virtualenv are visible read-only, so libraries installed for the bot are found.
    environment: Literal["minimal", "caller"] = "minimal"
    pass_variables: list[str] = Field(
        default_factory=list, description="variables of the referee's environment bots also get"
    )
    uid_base: int = Field(DEFAULT_UID_BASE, ge=1000, description="users: first bot user id")
    uid_count: int = Field(DEFAULT_UID_COUNT, ge=2, description="users: how many bot user ids")

    @field_validator("level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        parse_level(value)
        return value


def parse_level(level: str) -> frozenset[Feature] | None:
    """The features a level names; None for `auto`."""
    text = level.strip().lower()
    if text == AUTO:
        return None
    if text == BASIC:
        return frozenset()
    names = [part.strip() for part in text.split("+")]
    known = {f.value for f in Feature}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(
            f"unknown isolation feature {unknown[0]!r}: use auto, basic, or "
            + "+".join(f.value for f in FEATURE_ORDER)
        )
    return frozenset(Feature(n) for n in names)


def level_name(features: frozenset[Feature]) -> str:
    return "+".join(f.value for f in FEATURE_ORDER if f in features) or BASIC


@dataclass(frozen=True)
class FeatureCheck:
    """Whether a feature works on this machine, and a sentence saying why (not)."""

    feature: Feature
    available: bool
    reason: str


@dataclass(frozen=True)
class Detection:
    """What this machine offers."""

    checks: dict[Feature, FeatureCheck]
    bwrap: str | None
    cgroups: CgroupDriver | None

    @property
    def available(self) -> frozenset[Feature]:
        return frozenset(f for f, check in self.checks.items() if check.available)


@cache
def detect() -> Detection:
    """Try each feature once per process (a trial sandbox, a trial cgroup)."""
    bwrap, bwrap_reason = find_bwrap()
    driver, driver_reason = find_driver()
    if driver is not None:
        problem = probe(driver)
        if problem is not None:
            driver, driver_reason = None, f"{driver_reason} found, but {problem}"
        else:
            sweep_stale(driver)
    root = os.geteuid() == 0
    checks = {
        Feature.SANDBOX: FeatureCheck(Feature.SANDBOX, bwrap is not None, bwrap_reason),
        Feature.USERS: FeatureCheck(
            Feature.USERS,
            root,
            "the referee runs as root" if root else "the referee does not run as root",
        ),
        Feature.CGROUP: FeatureCheck(Feature.CGROUP, driver is not None, driver_reason),
    }
    return Detection(checks, bwrap, driver)


@dataclass(frozen=True)
class Isolation:
    """The level chosen for a run, with what is needed to apply it."""

    features: frozenset[Feature]
    settings: IsolationSettings
    bwrap: str | None = None
    cgroups: CgroupDriver | None = None

    @property
    def name(self) -> str:
        return level_name(self.features)

    def has(self, feature: Feature) -> bool:
        return feature in self.features


BASIC_ISOLATION = Isolation(frozenset(), IsolationSettings(level=BASIC))


def describe(isolation: Isolation) -> str:
    """The line every run starts with: the level its bots run under, and how it was chosen."""
    asked = isolation.settings.level.strip().lower()
    how = "auto: the strongest this machine offers" if asked == AUTO else "as asked"
    line = f"isolation: {isolation.name} ({how})"
    warning = root_warning(isolation)
    return f"{line}\n{warning}" if warning else line


def ran_as_root_warning(name: str, asked: Isolation, actual: str | None) -> str | None:
    """A loud sentence when `auto` had to run one bot without a user of its own although the
    level has users (its user could not read its program or enter its folder): as root."""
    if os.geteuid() != 0 or not asked.has(Feature.USERS) or actual is None:
        return None
    if Feature.USERS.value in actual.split("+"):
        return None
    return (
        f"WARNING: {name} ran as root ({actual}): a user of its own could not read its files. "
        "Make its folder readable by others (chmod -R o+rX) to give it one."
    )


def root_warning(isolation: Isolation) -> str | None:
    """A loud sentence when bots would run as root: the referee is root, and the level has no
    user of their own for them."""
    if os.geteuid() != 0 or isolation.has(Feature.USERS):
        return None
    return (
        "WARNING: the referee runs as root and bots get no user of their own at this level: "
        "they run as root. Use the users level (--isolation auto or sandbox+users+cgroup)."
    )


def choose(settings: IsolationSettings, detection: Detection | None = None) -> Isolation:
    """The isolation for `settings` on this machine; raises `IsolationUnavailable` if asked for
    a feature that is missing."""
    requested = parse_level(settings.level)
    if requested == frozenset():
        return Isolation(frozenset(), settings)
    found = detection or detect()
    if requested is None:
        features = found.available
    else:
        missing = [found.checks[f] for f in FEATURE_ORDER if f in requested - found.available]
        if missing:
            reasons = "; ".join(
                f"{c.feature.value}: {c.reason} (to fix: {FIXES[c.feature]})" for c in missing
            )
            raise IsolationUnavailable(f"isolation {settings.level!r} is not available: {reasons}")
        features = requested
    return Isolation(
        features,
        settings,
        bwrap=found.bwrap if Feature.SANDBOX in features else None,
        cgroups=found.cgroups if Feature.CGROUP in features else None,
    )
