"""Isolation levels: what this machine offers, what was asked for, and the level chosen.

The basic level is always there: each bot in its own session and process group, with a minimal
environment, a private scratch directory as HOME and TMPDIR, and resource limits. Three features
add to it where the machine has them, and combine:

- `sandbox`: namespaces of its own and a private view of the files (see `sandbox.py`), made by
  the compiled helper where the referee is root, or by bubblewrap;
- `users`: a user of its own for each running bot, when the referee runs as root
  (see `bot_users.py`);
- `cgroup`: a control group per bot for memory and process limits on the whole tree, exact CPU
  time, freezing and killing everything at once (see `cgroups.py`).

A level is written as `basic` or as features joined with `+` (`sandbox+users+cgroup`); `auto`
takes every feature available. Asking for a feature the machine lacks is an error that says why
it is missing, never a silent downgrade.

No bot runs as root unless the run says so in words: a root referee refuses a level without
`users` unless the level names `root` (`cgroup+root`) or the settings say `allow_root = true`.
Where the referee is root, every bot also gets network, IPC and mount namespaces of its own at
every level (no network, unless the settings say `network = true`; private /tmp, /var/tmp,
/dev/shm and /run/lock). At every level, for every referee, a bot runs under the system-call
filter (`syscall_filter.py`); a machine the filter has no table for runs no bot at all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from referee.isolation import native, syscall_filter
from referee.isolation.bot_users import DEFAULT_UID_BASE, DEFAULT_UID_COUNT, range_problem
from referee.isolation.cgroups import CgroupDriver, find_driver, probe, sweep_stale
from referee.isolation.places import Places
from referee.isolation.sandbox import find_bwrap, find_native


class Feature(StrEnum):
    SANDBOX = "sandbox"
    USERS = "users"
    CGROUP = "cgroup"


FEATURE_ORDER = (Feature.SANDBOX, Feature.USERS, Feature.CGROUP)
AUTO = "auto"
BASIC = "basic"
ROOT = "root"  # the word that lets bots run as root, in a level (`cgroup+root`)
BOTS_PER_GAME = 2  # each with a user of its own at the users level
HELPER, BUBBLEWRAP = "helper", "bubblewrap"  # the programs that can make the sandbox


# What makes a missing feature available, said to the user with the reason it is missing.
FIXES = {
    Feature.SANDBOX: "run the referee as root with a C compiler (apt-get install gcc), or install "
    "bubblewrap (apt-get install bubblewrap)",
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
    # False: a bot's own folders are read-only to it, in the sandbox and, for a bot with a user
    # of its own, without it too (whatever their permissions); True: writable as far as their
    # permissions let the bot's user write.
    # True is for trusted bots only: nothing bounds the total a bot writes there (each file has
    # `file_size_mb`), and its files stay, owned by a bot user id that later games reuse; only
    # their set-user-id and set-group-id bits are cleared after each game (`setid.py`).
    writable_dir: bool = Field(
        False,
        description="the bot may write its own directory (trusted bots only: each file is "
        "bounded, not their total; what it writes stays, owned by a bot user id later games "
        "reuse, its set-user-id and set-group-id bits cleared after each game; it may leave "
        "links, FIFOs and sockets there, and delete or replace its own program, which voids "
        "its later games)",
    )
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
    allow_root: bool = Field(
        False, description="a root referee may run bots as root (at a level without users)"
    )
    network: bool = Field(False, description="bots may use the network (off: no network)")
    sandbox_program: Literal["auto", "helper", "bubblewrap"] = Field(
        "auto", description="what makes the sandbox: the compiled helper (root) or bubblewrap"
    )

    @field_validator("level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        parse_level(value)
        return value


def parse_level(level: str) -> frozenset[Feature] | None:
    """The features a level names; None for `auto`. The word `root` may be joined to any level
    without `users` (`basic+root`, `cgroup+root`): see `names_root`."""
    names = [part.strip() for part in level.strip().lower().split("+")]
    if ROOT in names:
        names.remove(ROOT)
        if Feature.USERS.value in names:
            raise ValueError("isolation: users and root contradict (bots run as one or the other)")
        if not names:
            raise ValueError("isolation: root is joined to a level, as in basic+root")
    if names == [AUTO]:
        return None
    if names == [BASIC]:
        return frozenset()
    known = {f.value for f in Feature}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(
            f"unknown isolation feature {unknown[0]!r}: use auto, basic, or "
            + "+".join(f.value for f in FEATURE_ORDER)
        )
    return frozenset(Feature(n) for n in names)


def names_root(level: str) -> bool:
    """Whether a level says in words that bots may run as root (`cgroup+root`)."""
    return ROOT in [part.strip() for part in level.strip().lower().split("+")]


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
    native_sandbox: bool = False  # the compiled helper can make the sandbox

    @property
    def available(self) -> frozenset[Feature]:
        return frozenset(f for f, check in self.checks.items() if check.available)


@cache
def detect() -> Detection:
    """Try each feature once per process (a trial sandbox with each program, a trial cgroup)."""
    bwrap, bwrap_reason = find_bwrap()
    helper, helper_reason = find_native(native.native_helper())
    driver, driver_reason = find_driver()
    if driver is not None:
        problem = probe(driver)
        if problem is not None:
            driver, driver_reason = None, f"{driver_reason} found, but {problem}"
        else:
            sweep_stale(driver)
    root = os.geteuid() == 0
    checks = {
        Feature.SANDBOX: FeatureCheck(
            Feature.SANDBOX,
            helper or bwrap is not None,
            _sandbox_reason(helper_reason, bwrap_reason),
        ),
        Feature.USERS: FeatureCheck(
            Feature.USERS,
            root,
            "the referee runs as root" if root else "the referee does not run as root",
        ),
        Feature.CGROUP: FeatureCheck(Feature.CGROUP, driver is not None, driver_reason),
    }
    return Detection(checks, bwrap, driver, helper)


def _sandbox_reason(helper: str, bwrap: str) -> str:
    return f"compiled helper: {helper.removeprefix('the compiled helper ')}; {bwrap}"


@dataclass(frozen=True)
class Isolation:
    """The level chosen for a run, with what is needed to apply it."""

    features: frozenset[Feature]
    settings: IsolationSettings
    bwrap: str | None = None
    cgroups: CgroupDriver | None = None
    sandbox_program: str | None = None  # HELPER or BUBBLEWRAP, with the sandbox
    # Folders no bot of the run may see (the run's records, a tournament's folder and store).
    hidden: tuple[Path, ...] = ()
    # Of those, the ones that yield to a bot whose own places lie in them (a record's folder
    # that is a bot's own: the record itself is hidden by its path): `places.run_hidden`.
    yielding: tuple[Path, ...] = ()
    # The places of the run's players: each bot sees none of the others' (`places.py`).
    players: tuple[Places, ...] = ()
    # What a bot of the run should know of its view beyond the level (said with the level).
    notes: tuple[str, ...] = ()

    @property
    def allow_root(self) -> bool:
        """Whether the run said in words that bots may run as root."""
        return self.settings.allow_root or names_root(self.settings.level)

    def hiding(self, *folders: Path) -> Isolation:
        """The same isolation, hiding `folders` (absolute, links resolved) from every bot too."""
        added = tuple(f.resolve() for f in folders if f.resolve() not in self.hidden)
        return replace(self, hidden=self.hidden + added)

    def hiding_unless_own(self, *folders: Path) -> Isolation:
        """The same isolation, hiding `folders` from every bot but one whose own places (its
        folder, its program's) lie in them or are them: that bot would lose its program. For
        a record's folder, whose record is hidden by its own path."""
        hiding = self.hiding(*folders)
        added = tuple(f.resolve() for f in folders if f.resolve() not in self.yielding)
        return replace(hiding, yielding=self.yielding + added)

    def among(self, *players: Places) -> Isolation:
        """The same isolation, keeping every bot from these players' places too."""
        added = tuple(p for p in players if p not in self.players)
        return replace(self, players=self.players + added)

    def noting(self, *notes: str) -> Isolation:
        return replace(self, notes=self.notes + tuple(n for n in notes if n not in self.notes))

    @property
    def name(self) -> str:
        return level_name(self.features)

    @property
    def namespaces_of_its_own(self) -> bool:
        """Whether every bot gets IPC and mount namespaces of its own (private /tmp, /var/tmp,
        /dev/shm and /run/lock) and, unless allowed, no network: in the sandbox, and at every
        level wherever the referee is root."""
        return self.has(Feature.SANDBOX) or os.geteuid() == 0

    def has(self, feature: Feature) -> bool:
        return feature in self.features


BASIC_ISOLATION = Isolation(frozenset(), IsolationSettings(level=BASIC))


def describe(isolation: Isolation) -> str:
    """The line every run starts with: the level its bots run under, how it was chosen, and
    what makes the sandbox. Where bots run as root, the line says so first."""
    asked = isolation.settings.level.strip().lower()
    how = ["auto: the strongest this machine offers" if asked == AUTO else "as asked"]
    if isolation.sandbox_program is not None:
        maker = "the compiled helper" if isolation.sandbox_program == HELPER else "bubblewrap"
        how.append(f"sandbox made by {maker}")
    if isolation.settings.network:
        how.append("network allowed")
    line = f"isolation: {isolation.name} ({'; '.join(how)})"
    warning = root_warning(isolation)
    line = f"{warning} {line}" if warning else line
    return "\n".join([line, *(f"note: {note}" for note in isolation.notes)])


def ran_as_root_warning(
    name: str, asked: Isolation, actual: str | None, note: str | None
) -> str | None:
    """A loud sentence when one bot ran as root although the level has users: its user could
    not reach what `note` names, and the run allows root (`allow_root`)."""
    if os.geteuid() != 0 or not asked.has(Feature.USERS) or actual is None:
        return None
    if Feature.USERS.value in actual.split("+"):
        return None
    why = note.removeprefix("ran as root: ") if note else "its user could not reach its files"
    return f"WARNING: {name} ran as root ({actual}), as allow_root permits: {why}."


def root_warning(isolation: Isolation) -> str | None:
    """A loud sentence when bots run as root: the referee is root, the level gives them no user
    of their own, and the run allowed that."""
    if os.geteuid() != 0 or isolation.has(Feature.USERS):
        return None
    return "WARNING: bots run as root, as this run allows (give them users: --isolation auto)."


def choose(settings: IsolationSettings, detection: Detection | None = None) -> Isolation:
    """The isolation for `settings` on this machine; raises `IsolationUnavailable` if asked for
    a feature that is missing, or for bots as root without saying so, or where no system-call
    filter can be built."""
    requested = parse_level(settings.level)
    unfiltered = syscall_filter.unavailable_reason()
    if unfiltered is not None:  # never a bot without the filter: refused before the first game
        raise IsolationUnavailable(f"bots cannot run on this machine: {unfiltered}")
    root = os.geteuid() == 0
    if requested == frozenset() and not root:
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
    program = None
    if Feature.SANDBOX in features:
        program = choose_sandbox_program(settings, found)
        if program is None and requested is None:
            features = features - {Feature.SANDBOX}
        elif program is None:
            raise IsolationUnavailable(
                f"isolation {settings.level!r}: the sandbox cannot be made by "
                f"{settings.sandbox_program} here ({found.checks[Feature.SANDBOX].reason})"
            )
    isolation = Isolation(
        features,
        settings,
        bwrap=found.bwrap if program == BUBBLEWRAP else None,
        cgroups=found.cgroups if Feature.CGROUP in features else None,
        sandbox_program=program,
    )
    if root and not isolation.has(Feature.USERS) and not isolation.allow_root:
        raise IsolationUnavailable(
            f"isolation {settings.level!r} would run bots as root (the referee runs as root and "
            "this level gives them no user of their own): add users to the level (or use auto), "
            f"or say that bots may run as root: --isolation {level_name(features)}+root, or "
            "[match.isolation] allow_root = true"
        )
    check_bot_users(isolation, BOTS_PER_GAME)
    return isolation


def check_bot_users(isolation: Isolation, bots_at_once: int) -> None:
    """Raise `IsolationUnavailable` if `isolation` gives bots users of their own from ids that
    cannot serve `bots_at_once` bots running together: too few, or not free (see
    `bot_users.range_problem`). Before the first game: such a run would void its games, or
    kill and delete what belongs to others."""
    if not isolation.has(Feature.USERS):
        return
    settings = isolation.settings
    if problem := range_problem(settings.uid_base, settings.uid_count, bots_at_once):
        raise IsolationUnavailable(problem)


def choose_sandbox_program(settings: IsolationSettings, found: Detection) -> str | None:
    """What makes the sandbox: the compiled helper where it works (and is still in use: the
    Python programs may have been asked for), else bubblewrap; None if neither may."""
    wanted = settings.sandbox_program
    if wanted != BUBBLEWRAP and found.native_sandbox and native.native_helper() is not None:
        return HELPER
    if wanted != HELPER and found.bwrap is not None:
        return BUBBLEWRAP
    return None
