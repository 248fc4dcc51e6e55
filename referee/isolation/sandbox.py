"""The sandbox level: a bot in namespaces of its own, seeing a private view of the file system.

One plan of the bot's view, written as a bubblewrap command line, carried out by one of two
programs: the compiled helper (`referee-helper sandbox`, referee/isolation/sandbox.c), which
needs nothing installed but runs only when the referee is root, or `bwrap` (Debian package
`bubblewrap`), which also works for a referee that is not root. The helper is preferred where
both work: it needs no package, costs less, and is the same on every machine of this kind.

What a sandboxed bot sees and may do:

- no network (a network namespace with only a loopback of its own), unless the run allows it;
- its own pid namespace: it sees only its own processes, and when the namespace's init process
  ends, the kernel kills every process inside, even one that called `setsid()`;
- the system's own folders read-only (`SYSTEM`: /usr, /etc, /opt, /var, ...), and nothing else of
  the machine: homes, /root, /srv, /mnt, /run and any other top-level folder are simply not
  there. Its /dev, /proc and /sys are its own, never the machine's, whatever its command names
  (`--log /dev/null`): a /dev of the harmless devices, the /proc of its pid namespace, and a /sys
  that holds only the processor list (`SYS_SHOWN`, for sysconf) and, in a cgroup namespace of its
  own, its own cgroups where their hierarchies are mounted, as in a container (the JVM, libuv and
  others read their limits there), so that it sees no other cgroup, its opponent's least of all.
  What its /proc would list of every user of the machine (`PROC_MASKED`) it finds empty.
  Bound back in, read-only: its own directory (writable only if asked), the directories its
  command names, the prefix of its interpreter, and the referee's own Python with the built-in
  bots and installed games;
- a path in its own /dev, /proc or /sys, or one of its private places themselves (`/tmp`), is
  the view's own wherever it shows up (in a command line, as a folder): nothing of the machine's
  is bound there (`views_own`);
- hidden again wherever they would show: the other bots' directories and the files their
  commands name (each an empty file in its place), and the referee's private places (the
  records being written, a tournament's folder with its store, other runs' stores and records);
- a private /tmp, /var/tmp, /dev/shm and /run/lock (also its HOME and TMPDIR), of `tmp_mb` in all
  when the referee is root (one scratch tmpfs bound to the four places), gone with the bot;
- no capabilities, even when the referee runs as root, and no way to gain any (no-new-privileges);
  every folder bound in, its own writable one and its private places too, is `nosuid` and
  `nodev`: no set-user-id program nor device node works there.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.isolation.limits import MB

BWRAP = "bwrap"
# The machine's own folders a bot may read (each only if it is a real folder here); every other
# top-level name is absent from its view, and symbolic links among these (/bin -> usr/bin) kept.
SYSTEM = ("usr", "etc", "opt", "var", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
# The view's own: made for it, never bound from the machine, nor anything inside them that a
# command line names (a path there is what the view has, or absent).
OWN_MOUNTS = ("/dev", "/proc", "/sys")
# What its /sys holds of the machine's, read-only, besides its own cgroups: the processors, which
# sysconf (os.cpu_count, the JVM, OpenMP) counts there.
SYS_SHOWN = (Path("/sys/devices/system/cpu"),)
# The places a bot may write, private to it: where the root's scratch folder holds them, its
# sub-folder of that name is bound there (one tmpfs, so `tmp_mb` bounds them together).
PRIVATE_PLACES = {"/tmp": "tmp", "/var/tmp": "var-tmp", "/dev/shm": "shm", "/run/lock": "lock"}
HIDDEN_SIZE = 1 * MB  # hidden places are empty; mount points of bound paths need a little room
# What a hidden file shows instead: reads find it empty, writes go nowhere. Bound as it is, not
# read-only: a device's bind cannot be remounted read-only, and nothing can be kept in it; with
# `--dev-bind`, as every other bind is `nodev` (where opening it would be refused instead).
HIDDEN_FILE = "/dev/null"
# What a bot's /proc shows empty, in the sandbox and without it: what the kernel lists there of
# every user of the machine (/proc/key-users: each user's count of kernel keys).
PROC_MASKED = ("key-users",)
NAMESPACES = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup"]
TRIAL_TIMEOUT = 20.0


def find_bwrap() -> tuple[str | None, str]:
    """The bwrap executable if it works here, and a sentence saying what was found."""
    path = shutil.which(BWRAP)
    if path is None:
        return None, "bwrap is not installed (Debian package `bubblewrap`)"
    return _trial([path], "works (pid, network, ipc namespaces)")


def find_native(helper: Path | None) -> tuple[bool, str]:
    """Whether the compiled helper can make the sandbox here, and a sentence saying why (not)."""
    if os.geteuid() != 0:
        return False, "the referee does not run as root"
    if helper is None:
        return False, "no compiled helper (no C compiler found: apt-get install gcc)"
    program, reason = _trial([str(helper), "sandbox"], "makes the namespaces itself")
    return program is not None, reason.replace(str(helper), "the compiled helper")


def _trial(program: list[str], works: str) -> tuple[str | None, str]:
    trial = [*program, *NAMESPACES, "--unshare-net", "--cap-drop", "ALL"]
    trial += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true"]
    try:
        done = subprocess.run(trial, capture_output=True, timeout=TRIAL_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"{program[0]} cannot run: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip() or f"exit code {done.returncode}"
        return None, f"{program[0]} does not work here: {why}"
    return program[0], f"{program[0]} {works}"


@dataclass(frozen=True)
class View:
    """What one bot sees: see the module docstring. Every path absolute, links resolved."""

    cwd: Path
    writable: bool  # may it write its own directory
    own: Sequence[Path]  # the directories its command needs besides `cwd`
    public: Sequence[Path]  # what every bot may read: the referee's Python, built-in bots, ...
    hidden: Sequence[Path]  # other bots' folders and files, the referee's private places
    launcher: Sequence[Path] = ()  # the folders of the program that starts it inside
    private: Path | None = None  # the root's scratch folder holding PRIVATE_PLACES
    tmp_mb: int = 64
    switch_user: bool = False  # the inner launcher switches to the bot's own user
    network: bool = False
    # Its own cgroup folders and where its /sys shows each (its hierarchy's mount point).
    cgroups: Sequence[tuple[Path, Path]] = ()
    system: Sequence[str] = field(default=SYSTEM)


def sandbox_argv(program: Sequence[str], view: View) -> list[str]:
    """The sandbox program's arguments up to and including `--`; what it runs follows.

    `program`: `[bwrap]` or `[helper, "sandbox"]`. `switch_user`: the inner launcher keeps the
    two capabilities it needs to switch to the bot's user, which loses them (and no-new-privileges
    is set, so nothing executed inside can gain any).
    """
    # The sandbox's parent is the bot's supervisor (one thread, alive as long as anything of the
    # bot): if it dies, the sandbox's init dies, and with it the whole pid namespace.
    argv = [*program, *NAMESPACES, "--die-with-parent", "--cap-drop", "ALL"]
    if not view.network:
        argv.append("--unshare-net")
    if view.switch_user:
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    system = _system(tuple(view.system))
    argv += system.argv
    argv += ["--dev", "/dev", "--proc", "/proc", *_proc_masks()]
    argv += _sys(view)
    argv += _private_places(view)
    places = [Path(place) for place in PRIVATE_PLACES]
    mounts = Mounts(list(system.folders), places, made={Path("/dev"), Path("/run"), *places})
    argv += _binds_and_hides(view, mounts)
    for path in [*mounts.hidden, Path("/sys"), Path("/")]:
        argv += ["--remount-ro", str(path)]
    argv += ["--chdir", str(view.cwd), "--"]
    return argv


@dataclass(frozen=True)
class System:
    argv: list[str]
    folders: tuple[Path, ...]


@functools.cache
def _system(names: tuple[str, ...]) -> System:
    """The system folders, read-only, and the top-level links that lead into them."""
    argv: list[str] = []
    folders: list[Path] = []
    for name in names:
        path = Path("/", name)
        if path.is_symlink():
            target = os.readlink(path)
            if target.lstrip("/").split("/")[0] in names:
                argv += ["--symlink", target, str(path)]
        elif path.is_dir():
            argv += ["--ro-bind", str(path), str(path)]
            folders.append(path)
    return System(argv, tuple(folders))


@functools.cache
def _proc_masks() -> tuple[str, ...]:
    """Each entry of `PROC_MASKED` that this kernel has, shown empty in the bot's /proc: the
    null device bound over it as a device (bwrap's plain binds are `nodev`, where reading it
    would be refused instead)."""
    argv: list[str] = []
    for name in PROC_MASKED:
        if Path("/proc", name).exists():
            argv += ["--dev-bind", HIDDEN_FILE, f"/proc/{name}"]
    return tuple(argv)


def _sys(view: View) -> list[str]:
    """Its own /sys: a small empty tmpfs holding the processor list and its own cgroups."""
    argv = ["--perms", "0755", "--size", str(HIDDEN_SIZE), "--tmpfs", "/sys"]
    made = {"/sys"}
    shown = [(path, path) for path in SYS_SHOWN] + list(view.cgroups)
    for source, dest in shown:
        parts = str(dest).split("/")  # as text: pathlib's parents cost more than the rest
        for depth in range(3, len(parts)):
            parent = "/".join(parts[:depth])
            if parent not in made:
                made.add(parent)
                argv += ["--perms", "0755", "--dir", parent]
        argv += ["--ro-bind-try" if source in SYS_SHOWN else "--ro-bind", str(source), str(dest)]
        made.add(str(dest))
    for link, target in _cgroup_links(tuple(dest for _, dest in view.cgroups)):
        argv += ["--symlink", target, str(link)]
    return argv


@functools.cache
def _cgroup_links(mounts: tuple[Path, ...]) -> list[tuple[Path, str]]:
    """The links beside the cgroup hierarchies' mount points that lead to one of `mounts`
    (`/sys/fs/cgroup/cpu -> cpu,cpuacct`, where two controllers are mounted as one)."""
    links = []
    for mount in mounts:
        try:
            entries = list(os.scandir(mount.parent))
        except OSError:
            continue
        for entry in entries:
            if entry.is_symlink() and os.readlink(entry.path) == mount.name:
                links.append((Path(entry.path), mount.name))
    return links


def _private_places(view: View) -> list[str]:
    argv = ["--perms", "0755", "--dir", "/run"]
    for place, name in PRIVATE_PLACES.items():
        if view.private is not None:
            argv += ["--bind", str(view.private / name), place]
        else:  # no scratch tmpfs (a referee that is not root): one of its own each
            argv += ["--perms", "1777", "--size", str(view.tmp_mb * MB), "--tmpfs", place]
    return argv


@dataclass
class Mounts:
    """What the view holds so far: folders bound from the machine (their contents are there)
    and fresh empty ones (tmpfs), where the folders leading to a mount point must be made."""

    bound: list[Path]
    fresh: list[Path]
    hidden: list[Path] = field(default_factory=list)
    made: set[Path] = field(default_factory=set)

    def shows(self, path: Path) -> bool:
        """Whether `path` of the machine is there in the view (under a folder bound in)."""
        bound = _deepest(path, self.bound)
        fresh = _deepest(path, self.fresh)
        return bound is not None and (fresh is None or len(bound) >= len(fresh))

    def parents(self, path: Path) -> list[str]:
        """Make the folders leading to `path` that the view does not have, searchable by anyone
        (bwrap would make them private to root, which a bot with a user of its own cannot
        enter)."""
        argv: list[str] = []
        for parent in reversed(path.parents):
            if parent == Path("/") or parent in self.made or self.shows(parent):
                continue
            self.made.add(parent)
            argv += ["--perms", "0755", "--dir", str(parent)]
        return argv


def _binds_and_hides(view: View, mounts: Mounts) -> list[str]:
    """Bind what the bot needs and hide what it must not see, shallowest path first, so a
    folder hidden inside a bound one (the records inside the bot's own directory) is hidden
    after the bind, and one bound inside a hidden one (a bot's folder inside a tournament's) is
    bound after the hide.

    Hidden wins over what its command names (`own`), at that path and below it, whatever the
    order of the command's words: a command naming another bot's folder, a file in it or the
    run's store is shown none of them. Only its working folder and the launcher are bound
    wherever they lie, and what every bot may read (`public`: the referee's Python, its
    interpreter's folders) inside a hidden folder (for one path, hiding wins over it: an
    opponent may name a public folder as its own, the tables' cache)."""
    kinds: dict[Path, str] = {}
    for kind, paths in (
        ("public", view.public),
        ("own", view.own),
        ("hide", view.hidden),
        ("cwd", [view.cwd]),
        ("launcher", view.launcher),
    ):
        for path in paths:
            if path != Path("/") and not views_own(path):
                kinds[path] = kind  # later kinds win
    decided = [path for path, kind in kinds.items() if kind != "own"]
    for path in [path for path, kind in kinds.items() if kind == "own"]:
        above = _deepest(path, decided)
        if above is not None and kinds[Path(above)] == "hide":
            del kinds[path]  # it lies in a hidden place: it stays hidden
    argv: list[str] = []
    for path in sorted(kinds, key=lambda p: (len(p.parts), str(p))):
        kind = kinds[path]
        if kind == "hide":
            if not mounts.shows(path):
                continue
            if path.is_dir():
                argv += ["--perms", "0755", "--size", str(HIDDEN_SIZE), "--tmpfs", str(path)]
                mounts.fresh.append(path)
                mounts.hidden.append(path)
            elif path.exists():  # a file (another bot's program beside this one): empty here
                argv += ["--dev-bind", HIDDEN_FILE, str(path)]
            continue
        argv += mounts.parents(path)
        if kind == "public":
            argv += ["--ro-bind-try", str(path), str(path)]
        elif kind == "cwd" and view.writable:
            argv += ["--bind", str(path), str(path)]
        else:
            argv += ["--ro-bind", str(path), str(path)]
        mounts.bound.append(path)
    return argv


def views_own(path: Path) -> bool:
    """Whether `path` is the bot's view's own, never the machine's, whatever a command names: it
    is, or lies in, one of its own /dev, /proc and /sys, or it is one of its private places
    (`/tmp` itself: what lies in the machine's /tmp, a bot's folder, is the machine's)."""
    text = os.path.normpath(path)
    if text in PRIVATE_PLACES:
        return True
    return any(text == own or text.startswith(own + "/") for own in OWN_MOUNTS)


def _deepest(path: Path, roots: Sequence[Path]) -> str | None:
    """The deepest of `roots` that is `path` or lies above it, as text (None: none does).
    Compared as text: pathlib's `parents` and `==` cost 10 ms per bot over the few dozen paths
    of a sandbox."""
    text = str(path)
    best: str | None = None
    for root in roots:
        prefix = str(root).rstrip("/")
        if (text == prefix or text.startswith(prefix + "/")) and (
            best is None or len(prefix) > len(best)
        ):
            best = prefix
    return best
