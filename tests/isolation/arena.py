"""The stage for hostile-bot tests: bot directories, a well-behaved opponent, one match at a
chosen isolation level, and the check that nothing of either bot is left afterwards."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from referee.isolation.bot_users import DEFAULT_UID_BASE, unreachable_reason
from referee.isolation.cgroups import CgroupDriver
from referee.isolation.levels import (
    Feature,
    Isolation,
    IsolationSettings,
    choose,
    detect,
    parse_level,
)
from referee.isolation.limits import Limits
from referee.isolation.proctree import alive
from referee.isolation.scratch import SCRATCH_PREFIX
from referee.match.recorder import Listener
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec
from referee.records import GameRecord
from tests.games import play_game
from tests.scriptbots import quiet_opening

F = TypeVar("F", bound=Callable[..., Any])
LEVELS = ["basic", "sandbox", "users", "cgroup", "sandbox+users+cgroup"]
# Small limits so that hogs hit them fast; generous enough for a Python bot.
TEST_LIMITS = Limits(memory_mb=256, processes=48, file_size_mb=8, open_files=256, tmp_mb=32)


def skip_unless_available(level: str) -> None:
    """Skip the test, with the machine's reason, if `level` is not available here."""
    features = parse_level(level) or frozenset()
    checks = detect().checks
    missing = [checks[f] for f in sorted(features) if not checks[f].available]
    if missing:
        pytest.skip("; ".join(f"{c.feature.value} unavailable: {c.reason}" for c in missing))


def needs_any(*features: Feature, why: str) -> Callable[[F], F]:
    """Mark a test to run only at levels with one of `features`; `why` is the skip reason.

    The skip happens in the (synchronous) fixture, where pytest keeps its reason.
    """

    def mark(test: F) -> F:
        test.isolation_needs = (frozenset(features), why)  # type: ignore[attr-defined]
        return test

    return mark


def has(level: str, feature: Feature) -> bool:
    return feature in (parse_level(level) or frozenset())


MOVES = quiet_opening(16)

PRELUDE = """\
import os, sys, time, signal
MOVES = {moves!r}
def say(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()
def hear():
    return sys.stdin.readline().strip()
def note(text):
    sys.stderr.write(text + "\\n")
    sys.stderr.flush()
note("HOME=" + os.environ.get("HOME", ""))
def start():
    colour = hear()
    if colour == "blue":
        say(MOVES.pop(0))
    return colour
def turn():
    hear()
    say(MOVES.pop(0))
"""

OPPONENT = """\
with open(os.path.join(os.environ["HOME"], "secret"), "w") as f:
    f.write("opponent-secret")
colour = start()
while True:
    line = hear()
    if line in ("END", ""):
        break
    say(MOVES.pop(0) if MOVES else "resign")
"""


def bot_python(level: str) -> str:
    """A Python the bot's user can run at `level` (the referee's own, if it can)."""
    if not has(level, Feature.USERS) or has(level, Feature.SANDBOX):
        return sys.executable
    for candidate in (sys.executable, "/usr/bin/python3"):
        if unreachable_reason(Path(candidate), DEFAULT_UID_BASE, os.X_OK) is None:
            return candidate
    pytest.skip("no Python here that a bot user (not root) may run")


@dataclass
class Arena:
    """Two bot directories and the matches played between them."""

    level: str
    python: str
    sandbox_program: str = "auto"
    dirs: list[Path] = field(default_factory=list)
    homes: list[str] = field(default_factory=list)

    def directory(self) -> Path:
        # Under /tmp and open to others: at the users level a bot must read its own program.
        path = Path(tempfile.mkdtemp(prefix="hostile-", dir="/tmp"))
        path.chmod(0o755)
        self.dirs.append(path)
        return path

    def bot(self, body: str, moves: list[str], name: str = "bot") -> tuple[str, Path]:
        """A script bot in a directory of its own: its command and its directory."""
        directory = self.directory()
        script = directory / f"{name}.py"
        script.write_text(PRELUDE.format(moves=moves) + textwrap.dedent(body))
        script.chmod(0o644)
        (directory / "secret").write_text("secret of " + name)
        (directory / "secret").chmod(0o644)
        return f"{self.python} {script}", directory

    def hostile(self, body: str, colour: str = "blue") -> tuple[str, Path]:
        own = MOVES[0::2] if colour == "blue" else MOVES[1::2]
        return self.bot(body, own, "hostile")

    def opponent(self, colour: str = "orange", body: str = OPPONENT) -> tuple[str, Path]:
        own = MOVES[1::2] if colour == "orange" else MOVES[0::2]
        return self.bot(body, own, "opponent")

    def settings(self, **update: object) -> MatchSettings:
        base = MatchSettings(
            move_timeout=1.0,
            grace=0.2,
            startup_allowance=10.0,
            exit_grace=0.1,
            random_assignment=False,
            limits=TEST_LIMITS,
            isolation=IsolationSettings(
                level=self.level, allow_root=self.as_root, sandbox_program=self.sandbox_program
            ),
        )
        return base.model_copy(update=update)

    @property
    def as_root(self) -> bool:
        """Whether this arena's bots run as root: a level named without users (a root referee
        refuses that unless told), never `auto`."""
        return self.level != "auto" and not has(self.level, Feature.USERS)

    def isolation(self) -> Isolation:
        """The isolation of this arena's level, chosen as a run chooses it."""
        return choose(self.settings().isolation)

    async def play(
        self,
        blue: tuple[str, Path],
        orange: tuple[str, Path],
        settings: MatchSettings | None = None,
        record_path: Path | None = None,
        listener: Listener | None = None,
    ) -> GameRecord:
        record = await play_game(
            "lasker-morris",
            PlayerSpec(name="blue-bot", command=blue[0], cwd=blue[1]),
            PlayerSpec(name="orange-bot", command=orange[0], cwd=orange[1]),
            settings=settings or self.settings(),
            record_path=record_path,
            listener=listener,
        )
        assert record.result is not None
        for report in record.result.bots.values():
            for line in report.stderr_tail.splitlines():
                if line.startswith("HOME="):
                    self.homes.append(line[5:])
        return record

    def assert_nothing_left(self) -> None:
        """No process of either bot, no cgroup, no scratch directory. A process is this arena's
        by its own marks (its command line or working directory names a bot directory of this
        arena), never by its user: other referees may run bots under the same users meanwhile."""
        for pid in leftover_processes(self.dirs):
            pytest.fail(f"process {pid} of a bot is still running: {cmdline(pid)}")
        if has(self.level, Feature.CGROUP):
            assert own_cgroups(detect().cgroups) == []
        for home in self.homes:
            if SCRATCH_PREFIX in home:
                assert not Path(home).exists(), f"scratch directory {home} was left"

    def cleanup(self) -> None:
        for path in self.dirs:
            shutil.rmtree(path, ignore_errors=True)


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def working_directory(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return ""


def leftover_processes(dirs: list[Path]) -> list[int]:
    """Live processes whose command line names one of the bot directories, or that work in
    one (what a bot executed keeps its folder, whatever its command line)."""
    marks = [str(d) for d in dirs]
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            pid = int(entry)
            text = f"{cmdline(pid)}\0{working_directory(pid)}"
            if any(mark in text for mark in marks) and alive(pid):
                found.append(pid)
    return found


def own_cgroups(driver: CgroupDriver | None) -> list[Path]:
    if driver is None:
        return []
    prefix = f"referee-{os.getpid()}-"
    return [p for parent in driver.parents.values() for p in parent.glob(prefix + "*")]
