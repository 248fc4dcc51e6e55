"""Control groups for bots: a memory and process limit on the whole tree, exact CPU accounting,
freezing, and killing every process of a bot at once, whatever it did to its process group.

Both kernel interfaces are supported, because both are in use: the unified hierarchy (cgroup v2,
`/sys/fs/cgroup/cgroup.controllers`) and the older per-controller hierarchies (v1: `memory`,
`pids`, `freezer` and `cpuacct` mounted separately). A bot's cgroup is created below the
referee's own (v1) or below the root of a v2 hierarchy that hands out the memory and pids
controllers, named `referee-<referee pid>-<n>`, and removed when the bot is gone. The launcher
puts the bot into it before exec (`procs_files`), so not even its first instruction runs outside.

Under v1 the bot also gets a cgroup of its own in the `cpu` and `cpuset` hierarchies where they
are mounted apart from those four (no limit is set there; its `cpu.shares` is its referee's
niceness, `niceness_shares`): the sandbox shows a bot its own cgroups and no other (`views`),
and the JVM reads its memory limit only where it finds all of memory, cpu, cpuacct and cpuset.
A bot's cgroup folders are readable by root and the bot's own group alone (`restrict_to`), so
that no other bot reads its counters (its CPU time move by move).
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

import trio

CGROUP_ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "freezer", "cpuacct")
V1_VIEWED = ("cpu", "cpuset")  # joined where mounted apart, for what runtimes read (above)
CGROUP_MODE = 0o750  # a bot's cgroup folders: root's, and readable by the bot's group only
DEFAULT_SHARES = 1024  # v1 cpu.shares of a new group: the weight of a nice-0 process
# The scheduler's weight of each niceness from -20 to 19 (the kernel's sched_prio_to_weight).
NICE_WEIGHTS = (
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
    9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
    1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
    110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
)  # fmt: skip
_counter = itertools.count(1)


class CgroupError(Exception):
    """A cgroup could not be created or configured (an infrastructure failure)."""


def _write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError as exc:
        raise CgroupError(f"cannot write {value!r} to {path}: {exc.strerror or exc}") from None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _keyed(path: Path, key: str) -> int:
    """The value of `key` in a 'key value' per line file (cpu.stat, memory.events)."""
    for line in _read(path).splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0


@dataclass
class Cgroup:
    """One bot's cgroup: a directory per hierarchy (one for v2, one per controller for v1)."""

    version: int
    dirs: dict[str, Path]  # controller name (or "unified") -> directory
    # controller name -> the mount point of its hierarchy (where the sandbox shows its folder)
    mounts: dict[str, Path] = field(default_factory=dict)
    # The CPU usage file, kept open: it is read after every move, and opening a cgroup file
    # costs ten times what reading it does.
    _cpu_fd: int | None = field(default=None, init=False, repr=False, compare=False)
    _freeze_fd: int | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def views(self) -> list[tuple[Path, Path]]:
        """Each folder of this cgroup and the mount point of its hierarchy: in a cgroup namespace
        rooted at this cgroup, the bot sees it there, as in a container."""
        shown: dict[Path, Path] = {}
        for controller, directory in self.dirs.items():
            if controller in self.mounts:
                shown.setdefault(self.mounts[controller], directory)
        return [(directory, mount) for mount, directory in shown.items()]

    def restrict_to(self, gid: int | None) -> None:
        """Let root and group `gid` (a bot's own user's) alone read this cgroup's folders; with
        no `gid`, root alone (a referee that is not root keeps them its own)."""
        for directory in self.dirs.values():
            try:
                if os.geteuid() == 0:
                    os.chown(directory, 0, gid or 0)
                directory.chmod(CGROUP_MODE)
            except OSError as exc:
                raise CgroupError(
                    f"cannot restrict cgroup {directory}: {exc.strerror or exc}"
                ) from None

    def _dir(self, controller: str) -> Path:
        return self.dirs["unified"] if self.version == 2 else self.dirs[controller]

    def set_limits(self, memory_bytes: int | None, pids: int | None) -> None:
        if memory_bytes is not None:
            if self.version == 2:
                _write(self._dir("memory") / "memory.max", str(memory_bytes))
                swap = self._dir("memory") / "memory.swap.max"
                if swap.exists():
                    _write(swap, "0")
            else:
                _write(self._dir("memory") / "memory.limit_in_bytes", str(memory_bytes))
                memsw = self._dir("memory") / "memory.memsw.limit_in_bytes"
                if memsw.exists():
                    _write(memsw, str(memory_bytes))
        if pids is not None:
            _write(self._dir("pids") / "pids.max", str(pids))

    def members(self) -> list[int]:
        text = _read(self._dir("freezer") / "cgroup.procs")
        return [int(pid) for pid in text.split()]

    def cpu_seconds(self) -> float:
        """CPU time of every process the cgroup ever held (0.0 if it cannot be read)."""
        if self._cpu_fd is None:
            path = (
                self.dirs["unified"] / "cpu.stat"
                if self.version == 2
                else self.dirs["cpuacct"] / "cpuacct.usage"
            )
            try:
                self._cpu_fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                return 0.0
        try:
            text = os.pread(self._cpu_fd, 4096, 0).decode()
        except OSError:
            return 0.0
        if self.version == 2:  # "usage_usec N" is cpu.stat's first line
            for line in text.splitlines():
                name, _, value = line.partition(" ")
                if name == "usage_usec":
                    return int(value) / 1e6
            return 0.0
        return int(text) / 1e9 if text.strip() else 0.0

    def close_files(self) -> None:
        for fd in (self._cpu_fd, self._freeze_fd):
            if fd is not None:
                with suppress(OSError):
                    os.close(fd)
        self._cpu_fd = self._freeze_fd = None

    def oom_kills(self) -> int:
        if self.version == 2:
            return _keyed(self.dirs["unified"] / "memory.events", "oom_kill")
        return _keyed(self.dirs["memory"] / "memory.oom_control", "oom_kill")

    def forks_refused(self) -> int:
        """How often a fork or thread was refused at the process limit (`pids.max`)."""
        directory = self.dirs["unified"] if self.version == 2 else self.dirs["pids"]
        try:
            return _keyed(directory / "pids.events", "max")
        except CgroupError:
            return 0

    def freeze(self, frozen: bool) -> None:
        """Freeze or thaw every process of the cgroup, through a descriptor kept open: a
        pondering bot is thawed just before the line that asks it, on the path of a move."""
        path, value = self.freeze_file(frozen)
        try:
            if self._freeze_fd is None:
                self._freeze_fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
            os.pwrite(self._freeze_fd, value.encode(), 0)
        except OSError as exc:
            raise CgroupError(f"cannot write {value!r} to {path}: {exc.strerror or exc}") from None

    def freeze_file(self, frozen: bool) -> tuple[Path, str]:
        """The file and value that freeze (or thaw) this cgroup."""
        if self.version == 2:
            return self.dirs["unified"] / "cgroup.freeze", "1" if frozen else "0"
        return self.dirs["freezer"] / "freezer.state", "FROZEN" if frozen else "THAWED"

    def _is_frozen(self) -> bool:
        if self.version == 2:
            return _keyed(self.dirs["unified"] / "cgroup.events", "frozen") == 1
        return _read(self.dirs["freezer"] / "freezer.state").strip() == "FROZEN"

    async def kill_all(self, limit: float = 5.0) -> bool:
        """SIGKILL every process in the cgroup; return True once it is empty."""
        kill_file = self.dirs.get("unified", Path("/nonexistent")) / "cgroup.kill"
        with trio.move_on_after(limit):
            while self.members():
                if kill_file.exists():
                    _write(kill_file, "1")
                else:
                    await self._freeze_and_kill()
                await trio.sleep(0.005)
            return True
        return False

    async def _freeze_and_kill(self) -> None:
        # Frozen processes cannot fork, so one pass over the member list gets them all.
        with suppress(CgroupError):
            self.freeze(True)
            with trio.move_on_after(0.5):
                while not self._is_frozen():
                    await trio.sleep(0.002)
        for pid in self.members():
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with suppress(CgroupError):
            self.freeze(False)

    async def remove(self, limit: float = 2.0) -> bool:
        """Remove the directories (they must be empty); True when all are gone."""
        self.close_files()
        with trio.move_on_after(limit):
            while True:
                for path in list(self.dirs.values()):
                    with suppress(FileNotFoundError):
                        try:
                            path.rmdir()
                        except OSError:
                            continue  # still busy: the last processes are being torn down
                if not any(path.exists() for path in self.dirs.values()):
                    return True
                await trio.sleep(0.005)
        return False


@dataclass(frozen=True)
class CgroupDriver:
    """Where bot cgroups are created: parent directories per hierarchy."""

    version: int
    parents: dict[str, Path]
    mounts: dict[str, Path] = field(default_factory=dict)  # controller -> its mount point

    def create(self) -> Cgroup:
        name = f"referee-{os.getpid()}-{next(_counter)}"
        dirs: dict[str, Path] = {}
        try:
            for controller, parent in self.parents.items():
                if controller in V1_VIEWED:
                    continue
                path = parent / name
                path.mkdir()
                dirs[controller] = path
        except OSError as exc:
            for path in dirs.values():
                with suppress(OSError):
                    path.rmdir()
            raise CgroupError(f"cannot create cgroup {name}: {exc.strerror or exc}") from None
        for controller in V1_VIEWED:
            if controller in self.parents and _create_viewed(self.parents[controller] / name):
                dirs[controller] = self.parents[controller] / name
        return Cgroup(self.version, dirs, dict(self.mounts))


def _create_viewed(path: Path) -> bool:
    """A bot's cgroup in the cpu or cpuset hierarchy, where it can be made: it is only there for
    what the bot sees of itself, so a failure leaves the bot out of it, never fails the game."""
    try:
        path.mkdir()
        if path.parent.joinpath("cpuset.cpus").exists():  # a new cpuset has no processors
            for name in ("cpuset.cpus", "cpuset.mems"):  # until given its parent's
                value = (path.parent / name).read_text().strip()
                if not value:
                    raise OSError(f"{path.parent / name} is empty")
                (path / name).write_text(value)
        shares = path / "cpu.shares"
        if shares.exists() and (weight := niceness_shares()) != DEFAULT_SHARES:
            shares.write_text(str(weight))
    except OSError:
        with suppress(OSError):
            path.rmdir()
        return False
    return True


def niceness_shares() -> int:
    """This process's niceness as the kernel weighs it (`NICE_WEIGHTS`), in `cpu.shares`. A
    group in the cpu hierarchy is weighed as a whole, whatever its processes' niceness: a bot's
    group weighs what its referee would, so that a referee run at a lower priority (the arena's
    game workers) runs its bots at that priority too, and one at the usual priority leaves the
    default."""
    nice = max(-20, min(19, os.getpriority(os.PRIO_PROCESS, 0)))
    return NICE_WEIGHTS[nice + 20]


def sweep_stale(driver: CgroupDriver) -> int:
    """Empty and remove the cgroups of referees that died without cleaning up (killed hard):
    their bots may still be running. Returns how many cgroups were removed."""
    names = {
        path.name
        for parent in driver.parents.values()
        for path in parent.glob("referee-*-*")
        if path.name.split("-")[1].isdigit()
        and not Path(f"/proc/{path.name.split('-')[1]}").exists()
    }
    for name in names:
        dirs = {c: p / name for c, p in driver.parents.items() if (p / name).is_dir()}
        _empty(Cgroup(driver.version, dirs))
        for path in dirs.values():
            with suppress(OSError):
                path.rmdir()
    return len(names)


def _empty(group: Cgroup) -> None:
    """Kill what runs in a cgroup, synchronously (a few rounds: a leftover may be forking)."""
    for _ in range(100):
        pids = {int(p) for d in group.dirs.values() for p in _read(d / "cgroup.procs").split()}
        if not pids:
            return
        with suppress(CgroupError, KeyError):
            group.freeze(False)  # a frozen process dies only once thawed
        for pid in pids:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def own_cgroup_paths() -> dict[str, str]:
    """This process's cgroup path per hierarchy: controller name (or "" for v2) -> path."""
    paths: dict[str, str] = {}
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def v1_mounts() -> dict[str, Path]:
    """Mount points of the v1 hierarchies, by controller, from /proc/self/mountinfo."""
    mounts: dict[str, Path] = {}
    for line in _read(Path("/proc/self/mountinfo")).splitlines():
        pre, _, post = line.partition(" - ")
        fields = post.split()
        if len(fields) < 3 or fields[0] != "cgroup":
            continue
        options = set(fields[2].split(","))
        for controller in (*V1_CONTROLLERS, *V1_VIEWED):
            if controller in options:
                mounts.setdefault(controller, Path(pre.split()[4]))
    return mounts


def find_driver() -> tuple[CgroupDriver | None, str]:
    """A usable driver and how it was found, or None and why there is none."""
    v2_reason = _v2_unusable_reason()
    if v2_reason is None:
        unified = {"unified": CGROUP_ROOT}
        return CgroupDriver(2, unified, unified), "cgroup v2 at /sys/fs/cgroup"
    mounts = v1_mounts()
    missing = [c for c in V1_CONTROLLERS if c not in mounts]
    if missing:
        return None, f"{v2_reason}; no cgroup v1 hierarchy for {', '.join(missing)}"
    # cpu and cpuset only where mounted apart (cpu is often mounted with cpuacct, as one).
    taken = {mounts[c] for c in V1_CONTROLLERS}
    viewed = [c for c in V1_VIEWED if c in mounts and mounts[c] not in taken]
    own = own_cgroup_paths()
    controllers = [*V1_CONTROLLERS, *viewed]
    parents = {c: mounts[c] / own.get(c, "/").lstrip("/") for c in controllers}
    shown = {c: mounts[c] for c in controllers}
    return CgroupDriver(1, parents, shown), "cgroup v1 (" + ", ".join(V1_CONTROLLERS) + ")"


def _v2_unusable_reason() -> str | None:
    controllers = _read(CGROUP_ROOT / "cgroup.controllers").split()
    if not controllers:
        return "no cgroup v2 hierarchy at /sys/fs/cgroup"
    if not {"memory", "pids"} <= set(controllers):
        return "cgroup v2 does not offer the memory and pids controllers"
    if own_cgroup_paths().get("", "/") != "/":
        return "cgroup v2: the referee does not run in the root cgroup"
    try:
        _write(CGROUP_ROOT / "cgroup.subtree_control", "+memory +pids")
    except CgroupError as exc:
        return f"cgroup v2: {exc}"
    return None


def probe(driver: CgroupDriver) -> str | None:
    """Create, configure and remove a trial cgroup; None if that works, else why not."""
    try:
        group = driver.create()
    except CgroupError as exc:
        return str(exc)
    try:
        group.set_limits(64 * 1024 * 1024, 16)
        group.freeze(False)
        group.cpu_seconds()
    except CgroupError as exc:
        return str(exc)
    finally:
        for path in group.dirs.values():
            with suppress(OSError):
                path.rmdir()
    return None
