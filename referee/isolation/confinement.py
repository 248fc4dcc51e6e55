"""Everything one bot runs under, from before its start until nothing of it is left.

A `Confinement` is made for each bot by `open_bot`: it checks the command can be started (so a
missing or unreadable program is a clear start-up failure), prepares the bot's private scratch
directory, user and cgroup for the chosen isolation, builds the command line that runs the bot
through the launcher (and the sandbox), then, while the bot runs, owns what freezes and thaws it
(`ponder`: cpu's and freezer's), and what charges its CPU time to its answers (`cpu`), and at
the end kills every process it left and releases what it held.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shlex
import signal
import site
import socket
import stat
import subprocess
import sys
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path

import trio

from protocols import game_packages
from referee.builtin_tables import table_cache_directory
from referee.isolation import kernel, landlock, native, proctree, syscall_filter
from referee.isolation.bot_users import (
    NoFreeSlot,
    Slot,
    acquire_slot,
    kill_user,
    unreachable_reason,
    writable_by,
)
from referee.isolation.cgroups import Cgroup, CgroupError
from referee.isolation.cpu import CpuMeter
from referee.isolation.freezer import Freezer
from referee.isolation.interpreters import (
    ShimError,
    unshim,
    user_base,
    user_site_environment,
    without_env,
)
from referee.isolation.launch import options_of
from referee.isolation.levels import BASIC_ISOLATION, HELPER, Feature, Isolation, level_name
from referee.isolation.limits import MB, Limits
from referee.isolation.places import Places, hidden_from, run_hidden
from referee.isolation.ponder import DEFAULT_FREEZE_GRACE, PonderWatch
from referee.isolation.sandbox import (
    PRIVATE_PLACES,
    PROC_MASKED,
    SYSTEM,
    View,
    sandbox_argv,
    views_own,
)
from referee.isolation.scratch import (
    make_private_places,
    make_scratch,
    remove_files_of,
    remove_scratch,
)
from referee.isolation.setid import clear_setid

LAUNCHER = Path(__file__).with_name("launch.py")
SUPERVISOR = Path(__file__).with_name("supervise.py")
# How a limit shows on a bot's stderr where no kernel counter says it (lower case): what
# Python, the JVM, C/C++ runtimes and shells print when an allocation, a write or a fork fails.
LIMIT_EVIDENCE_BYTES = 4096
MEMORY_SIGNS = ("memoryerror", "outofmemoryerror", "bad_alloc", "cannot allocate memory")
FILE_SIZE_SIGNS = ("file too large",)
DISK_SIGNS = ("no space left on device", "disk quota exceeded")
PROCESS_SIGNS = (
    "blockingioerror: [errno 11]",
    "resource temporarily unavailable",
    "unable to create native thread",  # the JVM
    "can't start new thread",  # Python's threading
    "failed to create new os thread",  # Go
    "failed to spawn thread",  # Rust
    "fork: retry",
)
# A bot's HOME and TMPDIR where its /tmp is its own (in the sandbox, and wherever the referee
# is root): that private /tmp.
PRIVATE_HOME = Path("/tmp")
KEYS_CLEARED_WAIT = 10.0  # seconds; the launcher clears a user's keys in milliseconds
FILE_CLOCK_SLACK = 1.0  # seconds a file's change time may lag time.time() (the kernel's tick)


class StartRefused(Exception):
    """The bot's command cannot be started (the bot's fault: wrong path, not executable)."""


class InfrastructureFailure(Exception):
    """The machine failed us while preparing the bot (the referee's side: void the game)."""


class Unreachable(InfrastructureFailure):
    """The bot's own user cannot reach its program, its interpreter or its folder (a private
    home on the way): the machine's set-up, never the bot's fault. Runs refuse it before their
    first game, with the path and the fix."""


def resolve_executable(program: str, cwd: Path, path_env: str) -> Path:
    """The file `program` names, as exec would find it; `StartRefused` if there is none."""
    if "/" in program:
        candidates = [cwd / program]
    else:
        candidates = [Path(d or ".") / program for d in path_env.split(os.pathsep)]
        candidates = [c if c.is_absolute() else cwd / c for c in candidates]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate.absolute()
    if "/" in program and candidates[0].is_file():
        raise StartRefused(f"{program!r} is not executable (try chmod +x)")
    if "/" in program and candidates[0].exists():
        raise StartRefused(f"{program!r} is a directory, not a program")
    where = "" if "/" in program else " on the PATH"
    raise StartRefused(f"command not found: {program!r}{where}")


def _prefix(executable: Path) -> Path:
    """An executable in some `bin/` belongs to the prefix above it (an interpreter's libraries)."""
    return executable.parent.parent if executable.parent.name == "bin" else executable.parent


def named_directories(argv: Sequence[str], cwd: Path) -> list[Path]:
    """The directories a command line names: a script's directory, a jar's, a class path entry's
    (what a bot needs besides its working directory, and what its opponent must not see). A
    word naming the bot's view's own (`/tmp` itself, `/dev/fd/1`: see `views_own`) names none
    of the machine's."""
    found: list[Path] = []
    for part in _named_words(argv, cwd):
        path = cwd / part
        if part not in (".", "/") and (kind := _kind(path)) is not None:
            found.append(path.resolve() if kind == "folder" else path.resolve().parent)
    return _unique([folder for folder in found if not views_own(folder)])


def _named_words(argv: Sequence[str], cwd: Path) -> list[str]:
    """The words of a command's arguments that may name paths (each part of a class path), but
    those naming its view's own places: its /dev, /proc and /sys, and its private places, which
    are never the machine's wherever the referee gives it them, and whose machine's files
    (/dev/fd/1: the referee's own output) are no bot's."""
    return [
        part
        for token in argv[1:]
        for part in token.split(os.pathsep)
        if part and not views_own(cwd / part)
    ]


def _kind(path: Path) -> str | None:
    """What `path` names: a "folder", a "file" (a regular one), an "other", or None: nothing
    is there (a word too long to be a file's name, or in a folder that may not be looked into,
    names nothing)."""
    try:
        info = path.stat()
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(info.st_mode):
        return "folder"
    return "file" if stat.S_ISREG(info.st_mode) else "other"


def assigned_directories(assigned: Mapping[str, str], cwd: Path) -> list[Path]:
    """The directories an `env` wrapper's assignments name (`env PYTHONPATH=DIR ...`)."""
    return named_directories(["env", *assigned.values()], cwd)


def own_directories(argv: Sequence[str], cwd: Path, executable: Path) -> list[Path]:
    """Everything a sandboxed bot needs besides its working directory: its interpreter's prefix
    (also where a symlinked interpreter really lives) and the directories its command names."""
    prefixes = [_prefix(executable), _prefix(executable.resolve())]
    return _unique([*prefixes, *named_directories(argv, cwd)])


def interpreter_folders(argv: Sequence[str], executable: Path) -> list[Path]:
    """The folders of the program a bot's command starts when that is an interpreter or a tool
    of the machine (found on the PATH, or given by its absolute path: `python3`, `/usr/bin/java`),
    not a file of the bot's own (`./bot`): every bot may read them, whatever another names."""
    if not argv or ("/" in argv[0] and not os.path.isabs(argv[0])):
        return []
    prefixes = [_prefix(executable), _prefix(executable.resolve())]
    return [path for path in _unique(prefixes) if len(path.parts) > 1]


def named_files(argv: Sequence[str], cwd: Path) -> list[Path]:
    """The files a command line names: a script, a jar, a program started by a relative path
    (`./bot`). A program given by its absolute path is an interpreter (`/usr/bin/python3`),
    which other bots may run too, not a file of this bot's own."""
    words = _named_words(argv, cwd)
    if argv and "/" in argv[0] and not os.path.isabs(argv[0]):
        words.insert(0, argv[0])
    found = [(cwd / part).resolve() for part in words if _kind(cwd / part) == "file"]
    return _unique(found)


def player_directories(command: str, cwd: Path | None) -> list[Path]:
    """A player's own directories (its working directory and those its command names): what a
    sandboxed opponent must not see."""
    workdir = (cwd or Path.cwd()).absolute()
    try:
        argv, assigned = without_env(shlex.split(command))
    except ValueError:
        return [workdir]
    named = [*named_directories(argv, workdir), *assigned_directories(assigned, workdir)]
    return _unique([workdir, *named])


def player_places(command: str, cwd: Path | None) -> Places:
    """A player's places (`places.Places`: its folder, its program, what else its command
    names), which the sandbox keeps from the other bots of its run."""
    workdir = (cwd or Path.cwd()).absolute()
    try:
        argv, assigned = without_env(shlex.split(command))
    except ValueError:
        return Places(workdir.resolve(), workdir.resolve())
    return places_of(argv, workdir, assigned_directories(assigned, workdir))


def places_of(argv: Sequence[str], cwd: Path, extra: Sequence[Path] = ()) -> Places:
    """The places of a bot started as `argv` in `cwd`; `extra`: the folders its command names
    outside `argv` (an `env` wrapper's assignments). Its program is what `argv[0]` names by a
    relative path (`./bot`) or by an absolute path that is no interpreter's
    (`/home/me/bots/cbot`: see `own_program`), else the first path its words name, else it has
    none but its folder (`python3 -m bot`)."""
    folder = cwd.resolve()
    program_folder, program_file = folder, None
    if argv and "/" in argv[0] and (not os.path.isabs(argv[0]) or own_program(argv[0])):
        program_file = (cwd / argv[0]).resolve()
        program_folder = program_file.parent
    else:
        words = [part for token in argv[1:] for part in token.split(os.pathsep)]
        for path in [*(cwd / w for w in words if w not in ("", ".", "/")), *extra]:
            kind = _kind(path)
            if kind is None or views_own(path.absolute()):
                continue  # names nothing, or what the view has of its own (/dev/null)
            if kind == "folder":
                program_folder = path.resolve()
            else:
                program_file = path.resolve() if kind == "file" else None
                program_folder = path.resolve().parent
            break
    own = {folder, program_folder, program_file}
    named = [*named_directories(argv, cwd), *extra, *named_files(argv, cwd)]
    return Places(
        folder, program_folder, program_file, tuple(p for p in _unique(named) if p not in own)
    )


def own_program(path: str) -> bool:
    """Whether a program given by its absolute path is the bot's own (a compiled bot run from
    its folder: `/home/me/bots/cbot`), not an interpreter or a tool every bot may run: one in the
    machine's system folders (`/usr/bin/python3`), in the referee's Python, or in a `bin` folder
    (a virtualenv's `/home/me/venv/bin/python`). Without this, a compiled bot beside another
    bot's script would have that script's folder, its own, hidden from it."""
    resolved = Path(path).resolve()
    if len(resolved.parts) > 1 and resolved.parts[1] in SYSTEM:
        return False
    prefixes = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    if any(prefix in resolved.parents for prefix in prefixes):
        return False
    return resolved.parent.name != "bin" and _kind(resolved) == "file"


def _unique(paths: Sequence[Path]) -> list[Path]:
    unique: list[Path] = []
    for path in paths:
        if path not in unique and path != Path("/"):
            unique.append(path)
    return unique


def package_directories(package: str) -> list[Path]:
    """Where an importable top-level package (or module) lives, without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [Path(location).resolve() for location in spec.submodule_search_locations]
    return [Path(spec.origin).resolve().parent] if spec.origin else []


@functools.cache
def plugin_packages() -> tuple[str, ...]:
    """The top-level packages of the installed game plug-ins: the built-in bots import them, so
    a sandboxed bot must see them wherever they are installed (an editable install may live in
    a folder the sandbox hides, such as /tmp or a home directory). Read once: installing a game
    takes a new referee process anyway."""
    return game_packages()  # the built-in games' package among them, which is public anyway


def public_directories(caller_environment: bool = False) -> list[Path]:
    """What every sandboxed bot may read: the referee's Python, the built-in bots (with their
    solved tables) and the installed game plug-ins, and the libraries its caller installed for
    bots (user site-packages, the active virtualenv, and with the caller's environment the
    folders of its PYTHONPATH)."""
    paths = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    base = user_base()
    extras = [site.getusersitepackages() if base else None, os.environ.get("VIRTUAL_ENV")]
    if caller_environment:
        extras += os.environ.get("PYTHONPATH", "").split(os.pathsep)
    for extra in extras:
        if extra and Path(extra).is_dir():
            paths.add(Path(extra).resolve())
    for package in ("bots", "protocols", *plugin_packages()):
        paths.update(package_directories(package))
    tables = table_cache_directory()
    if tables.is_dir():  # the built-in bots' solved tables: nothing private, read-only
        paths.add(tables.resolve())
    paths.update(launcher_directories())
    return sorted(paths)


def launcher(status_fd: int) -> list[str]:
    """The launcher program with its status descriptor: the compiled helper's, else the Python
    one."""
    helper = native.native_helper()
    if helper is not None:
        return [str(helper), "launch", str(status_fd)]
    return [sys.executable, "-I", "-S", str(LAUNCHER), str(status_fd)]


async def clear_keys(uid: int) -> None:
    """Empty the user and user-session keyrings of bot user `uid` if it has keys at all: the
    launcher does it as that user (only it may), then executes `true`. Best effort: the next bot
    of that user has them cleared before it starts anyway."""
    if kernel.key_count(uid) == 0:
        return
    options = options_of({"uid": uid, "seccomp": syscall_filter.argument()})
    with trio.move_on_after(KEYS_CLEARED_WAIT):
        await trio.run_process(
            [*launcher(2), *options, "true"],
            stdin=subprocess.DEVNULL,
            capture_stdout=True,
            capture_stderr=True,
            check=False,
            cwd="/",
            env={"PATH": "/usr/bin:/bin"},
        )


def launcher_directories() -> list[Path]:
    """The folders of the inner launcher, executed inside the sandbox: the Python program's,
    and the compiled helper's where there is one."""
    helper = native.native_helper()
    folders = [LAUNCHER.resolve().parent]
    return folders if helper is None else [*folders, helper.resolve().parent]


def reach_problem(
    executable: Path,
    cwd: Path,
    argv: Sequence[str],
    uid: int,
    sandboxed: bool,
    *,
    own_only: bool = False,
) -> str | None:
    """Why user `uid` cannot run this bot, naming the path that stops it; None if it can.

    In the sandbox only the paths themselves and their own folders matter (the view makes the
    folders leading to them); without it every folder on the way must be open to the user.
    With `own_only` (a command its author wrote: a student's build), only what the referee
    provides is checked (the folder, the files in it, a program found on the PATH): a path
    the command names elsewhere is its author's to reach, and fails in the run like a path
    that does not exist.
    """
    checks = [(cwd, os.X_OK, "its folder")]
    if not (own_only and "/" in argv[0] and not _inside(executable, cwd)):
        checks.append((executable, os.X_OK, "its program"))
    checks += [
        (cwd / word, os.R_OK, "a file its command names")
        for word in _named_words(argv, cwd)
        if (not own_only or _inside(cwd / word, cwd)) and _kind(cwd / word) == "file"
    ]
    if sandboxed:
        checks += [(path.parent, os.X_OK, f"the folder of {what}") for path, _, what in checks[1:]]
    for path, need, what in checks:
        reason = unreachable_reason(path, uid, need, parents=not sandboxed)
        if reason is not None:
            real = path.resolve()
            shown = f"{path}" if real == path.absolute() else f"{path} (really {real})"
            return f"{reason}, on the way to {shown}, {what}"
    return None


def _inside(path: Path, folder: Path) -> bool:
    """Whether `path` (followed) lies in `folder`."""
    try:
        real, root = path.resolve(), folder.resolve()
    except (OSError, RuntimeError):
        return False
    return real == root or root in real.parents


def hidden_program(program: str, cwd: Path, uid: int) -> bool:
    """Whether a program named by its path (`/root/x`, `../x`) lies where user `uid` cannot
    reach it: for a command its author wrote, the referee then answers as for a program that
    does not exist, telling nothing of what is there."""
    if "/" not in program:
        return False
    return unreachable_reason(cwd / program, uid, os.X_OK, parents=True) is not None


def reach_fix(sandboxed: bool) -> str:
    """What makes a bot's files reachable by its own user, said with the refusal."""
    ways = ["let others read the path (chmod o+rX on each folder on the way)"]
    ways.append("use a program and a folder outside a private home")
    if not sandboxed:
        ways.append(
            "give the referee a sandbox, which shows a bot what it needs wherever it lies: a C "
            "compiler for its helper (apt-get install gcc) or bubblewrap (apt-get install "
            "bubblewrap)"
        )
    ways.append(
        "or run bots as root ([match.isolation] allow_root = true, or --isolation ...+root)"
    )
    return "Bots run as a user of their own here; to fix: " + "; ".join(ways)


def reach_check(command: str, cwd: Path | None, isolation: Isolation) -> str | None:
    """Before a run's first game: why this machine cannot run the bot `command` under
    `isolation` (its own user cannot reach its program or folder), with the fix; None if it
    can, or if that is the bot's own problem (a program that does not exist), which its game
    will judge."""
    if not isolation.has(Feature.USERS) or isolation.allow_root:
        return None
    workdir = (cwd or Path.cwd()).absolute()
    try:
        argv, assigned = without_env(shlex.split(command))
        environment = {**os.environ, **assigned}
        executable = resolve_executable(argv[0], workdir, environment.get("PATH", ""))
        argv, executable, _ = unshim(argv, executable, workdir, environment)
    except (ValueError, IndexError, StartRefused, ShimError):
        return None
    sandboxed = isolation.has(Feature.SANDBOX)
    problem = reach_problem(executable, workdir, argv, isolation.settings.uid_base, sandboxed)
    return None if problem is None else f"{problem}. {reach_fix(sandboxed)}"


class Confinement:
    """One bot's isolation and limits; see the module docstring."""

    def __init__(
        self,
        isolation: Isolation | None,
        limits: Limits | None,
        freeze: bool,
        freeze_grace: float = DEFAULT_FREEZE_GRACE,
        *,
        untrusted_command: bool = False,
    ) -> None:
        self.isolation = isolation or BASIC_ISOLATION
        # A command its author wrote (a student's build): a path it names outside its own
        # folder is the author's business, never checked nor revealed by the referee.
        self.untrusted_command = untrusted_command
        self.limits = limits or Limits()
        self.freeze_idle = freeze
        self.freeze_grace = freeze_grace
        self.slot: Slot | None = None
        self.cgroup: Cgroup | None = None
        self.scratch: Path | None = None
        self.pid: int | None = None  # the bot's supervisor, whose descendants are the bot
        self.control: socket.socket | None = None  # closing it ends the bot's whole tree
        self.freezer: Freezer | None = None
        self.cpu: CpuMeter | None = None  # set with the freezer and the watch, at `attach`
        self.ponder: PonderWatch | None = None
        self._tree_cpu: proctree.TreeCpu | None = None  # where no cgroup counts CPU time
        self._released = False
        # Its folder, where the run lets it write there (`writable_dir`): see `release`.
        self.writable_folder: Path | None = None
        self.notes: list[str] = []  # what `auto` could not use for this bot, and why
        self.features = self.isolation.features  # what this bot actually runs under

    @property
    def level(self) -> str:
        """The isolation level this bot actually runs under."""
        return level_name(self.features)

    @property
    def sandboxed(self) -> bool:
        return self.isolation.has(Feature.SANDBOX)

    @property
    def uid(self) -> int | None:
        return self.slot.uid if self.slot is not None else None

    # -- before the start ---------------------------------------------------------------------

    async def prepare(self) -> None:
        """Take a user slot (and clear its user's keys), make the cgroup and the scratch
        directory: where the referee is root, a tmpfs of `tmp_mb` holding the bot's private
        /tmp, /var/tmp, /dev/shm and /run/lock (its HOME and TMPDIR are that /tmp); else,
        without a sandbox, its HOME and TMPDIR."""
        settings = self.isolation.settings
        try:
            if self.isolation.has(Feature.USERS):
                self.slot = await acquire_slot(settings.uid_base, settings.uid_count)
                # Before its bot starts, whose /proc shows no key counts to its launcher.
                await clear_keys(self.slot.uid)
            if self.isolation.cgroups is not None:
                self.cgroup = self.isolation.cgroups.create()
                memory = self.limits.memory_mb
                self.cgroup.set_limits(memory * MB if memory else None, self.limits.processes)
                self.cgroup.restrict_to(self.uid)  # no other bot reads its counters
            if os.geteuid() == 0:
                self.scratch = make_scratch(self.limits.tmp_mb, None)
                make_private_places(self.scratch)
            elif not self.sandboxed:
                self.scratch = make_scratch(self.limits.tmp_mb, None)
        except (OSError, CgroupError, NoFreeSlot) as exc:
            await self.release()
            raise InfrastructureFailure(str(exc)) from None

    def check_reachable(self, executable: Path, cwd: Path, argv: Sequence[str]) -> None:
        """With a user of its own: can the bot's user run its program in its directory?

        If not, the bot runs as root only where the run allows that in words (`allow_root`),
        noting why; otherwise it is refused with the path and the fix (`Unreachable`).
        """
        if self.slot is None:
            return
        problem = reach_problem(
            executable, cwd, argv, self.slot.uid, self.sandboxed, own_only=self.untrusted_command
        )
        if problem is None:
            return
        if not self.isolation.allow_root:
            raise Unreachable(f"{problem}. {reach_fix(self.sandboxed)}")
        self.notes.append(f"ran as root: {problem}")
        self.features = self.features - {Feature.USERS}
        self.slot.release()
        self.slot = None

    def environment(self, extra: Mapping[str, str] | None) -> dict[str, str]:
        """The environment a bot starts with (see `IsolationSettings.environment`), plus any
        extras."""
        settings = self.isolation.settings
        home = str(PRIVATE_HOME if self.isolation.namespaces_of_its_own else self.scratch)
        env = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": home,
            "TMPDIR": home,
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        own_home = not self.sandboxed and self.uid is None  # the caller's HOME is usable
        if settings.environment == "caller":
            env = {**os.environ, **({} if own_home else {"HOME": home, "TMPDIR": home})}
        if env["HOME"] != os.environ.get("HOME"):  # Python finds `pip install --user` by HOME
            env.update(user_site_environment())
        env.update(
            {name: os.environ[name] for name in settings.pass_variables if name in os.environ}
        )
        env.update(extra or {})
        return env

    def command(
        self,
        argv: Sequence[str],
        cwd: Path,
        executable: Path,
        hide: Sequence[Path],
        fd: int,
        control_fd: int,
        named: Sequence[Path] = (),
    ) -> list[str]:
        """The full command line: the supervisor with the launcher's arguments (its forked child
        runs the launcher's code without starting another interpreter), then (when sandboxed)
        the sandbox program and the inner launcher, then the bot's own argv."""
        helper = native.native_helper()
        if helper is not None:
            supervisor = [str(helper), "supervise", str(control_fd)]
        else:
            supervisor = [sys.executable, "-I", "-S", str(SUPERVISOR), str(control_fd)]
        if self.cgroup is not None:  # a frozen cgroup's processes die only once thawed
            path, value = self.cgroup.freeze_file(False)
            supervisor += ["--thaw", str(path), value]
        launch = self._launch_arguments(argv, cwd, executable, hide, fd, named)
        if self.isolation.settings.writable_dir:
            self.writable_folder = cwd
        return [*supervisor, "--", *launch]

    def _launch_arguments(
        self,
        argv: Sequence[str],
        cwd: Path,
        executable: Path,
        hide: Sequence[Path],
        fd: int,
        named: Sequence[Path],
    ) -> list[str]:
        """The launcher's arguments: STATUS_FD OPTION... -- what it executes. `named`: folders
        the bot's command named outside `argv` (an `env` wrapper's assignments), its own too."""
        rlimits = self.limits.rlimits(
            memory_by_rlimit=self.cgroup is None, nproc=self.uid is not None
        )
        spec: dict[str, object] = {"rlimits": rlimits}
        spec["cgroup_procs"] = self.cgroup.procs_files if self.cgroup else []
        try:
            seccomp = syscall_filter.argument()
        except syscall_filter.FilterUnavailable as exc:
            raise InfrastructureFailure(str(exc)) from None
        domain = landlock.argument()  # no other process within its reach
        if not self.sandboxed:
            spec.update(uid=self.uid, stage="only", landlock=domain, seccomp=seccomp)
            if self.isolation.namespaces_of_its_own:  # as the sandbox would give them
                spec.update(self._namespaces(argv, cwd, executable, named))
            return [str(fd), *options_of(spec), *argv]
        # What its opponents' commands name hides nothing it needs to run (its program, its
        # folder, its interpreter's), and what it names itself shows nothing hidden from it.
        interpreter = interpreter_folders(argv, executable)
        public = _unique(
            [*public_directories(self.isolation.settings.environment == "caller"), *interpreter]
        )
        own = places_of(argv, cwd, named)
        needs = [*own_directories(argv, cwd, executable), *named]
        view = View(
            cwd=cwd,
            writable=self.isolation.settings.writable_dir,
            own=[path for path in _unique(needs) if path not in interpreter],
            public=public,
            hidden=[
                *run_hidden(own, hide, self.isolation.yielding),
                *hidden_from(own, self.isolation.players, public),
            ],
            launcher=launcher_directories(),
            private=self.scratch,
            tmp_mb=self.limits.tmp_mb,
            switch_user=self.uid is not None,
            network=self.isolation.settings.network,
            cgroups=self.cgroup.views() if self.cgroup is not None else (),
        )
        sandbox = sandbox_argv(self._sandbox_program(), view)
        inner_launcher = launcher(fd)
        inner = options_of(
            {"stage": "inner", "uid": self.uid, "landlock": domain, "seccomp": seccomp}
        )
        spec["stage"] = "outer"
        return [str(fd), *options_of(spec), *sandbox, *inner_launcher, *inner, *argv]

    def _namespaces(
        self, argv: Sequence[str], cwd: Path, executable: Path, named: Sequence[Path]
    ) -> dict[str, object]:
        """A root referee's bot without a sandbox: the launcher's options for a network (unless
        allowed), an IPC and a mount namespace of its own, in which its private places are the
        folders of its scratch tmpfs, the folders it needs that lie in them are shown again (its
        own, its interpreter's, the referee's Python and built-in bots), and then its own folders
        that its user could write are read-only (`_readonly_folders`): each path resolved, so
        that a read-only folder in a private place is one shown again, at the same path. Last, a
        /proc of its own shows it no process of another user (its opponent's, the referee's),
        and nothing of `PROC_MASKED`."""
        assert self.scratch is not None  # made by `prepare` wherever the referee is root
        places = [
            (str(self.scratch / name), place)
            for place, name in PRIVATE_PLACES.items()
            if Path(place).is_dir() and not Path(place).is_symlink()
        ]
        own = [path.resolve() for path in [cwd, *named_directories(argv, cwd), *named]]
        needed = [
            *own,
            *own_directories(argv, cwd, executable),
            *public_directories(self.isolation.settings.environment == "caller"),
        ]
        keep = [  # a private place itself is the bot's own: nothing of the machine's over it
            str(path)
            for path in _unique([path.resolve() for path in needed])
            if any(path.is_relative_to(place) for _, place in places)
            and path.is_dir()
            and not views_own(path)
        ]
        return {
            "network": None if self.isolation.settings.network else "none",
            "ipc": "private",
            "places": places,
            "keep": keep,
            "readonly": self._readonly_folders(own),
            "proc": list(PROC_MASKED),  # no other user's processes, nor their key counts
        }

    def _readonly_folders(self, folders: Sequence[Path]) -> list[str]:
        """Without the sandbox: the bot's own folders that its user could write (open to every
        user), made read-only to it, last in its mount namespace (so as it sees them), unless
        the run lets bots write their folder (`writable_dir`): so that it plants nothing there
        for the referee (a link where the next records go) and fills no disk beyond its bounded
        scratch tmpfs."""
        if self.uid is None or self.isolation.settings.writable_dir:
            return []
        return [  # its private places (its folder being /tmp itself) stay its own to write
            str(path)
            for path in _unique(folders)
            if writable_by(path, self.uid) and not views_own(path)
        ]

    def _sandbox_program(self) -> list[str]:
        """The program that makes the sandbox: the compiled helper, or bwrap."""
        helper = native.native_helper()
        if self.isolation.sandbox_program == HELPER and helper is not None:
            return [str(helper), "sandbox"]
        if self.isolation.bwrap is None:
            raise InfrastructureFailure("the sandbox's program is gone (no helper, no bwrap)")
        return [self.isolation.bwrap]

    # -- while it runs ------------------------------------------------------------------------

    def attach(self, supervisor: int, control: socket.socket | None = None) -> None:
        self.pid = supervisor
        self.control = control
        self.freezer = Freezer(supervisor, self.cgroup, self.freeze_idle)
        self.cpu = CpuMeter(self.cpu_seconds)
        self.ponder = PonderWatch(self.freezer, self.cpu_seconds, self.runnable, self.freeze_grace)

    def cpu_seconds(self) -> float | None:
        """The bot's CPU time so far; None where it cannot be told (after `release`)."""
        if self._released:
            return None
        if self.cgroup is not None:
            return self.cgroup.cpu_seconds()
        if self.pid is None:
            return None
        if self._tree_cpu is None:
            self._tree_cpu = proctree.TreeCpu(self.pid)
        return self._tree_cpu.seconds()

    def runnable(self) -> bool:
        """Whether a thread of the bot is running or waiting for a CPU right now (its cgroup's
        members, or everything below its supervisor)."""
        if self.cgroup is not None:
            members = self.cgroup.members()
        elif self.pid is not None:
            members = proctree.descendants(self.pid)[1:]
        else:
            return False
        return proctree.any_runnable(members)

    def explain_exit(self, returncode: int, stderr_tail: str = "") -> tuple[int, str]:
        """The bot's own exit code (the sandbox reports a signal as 128 + its number) and what
        limit, if any, ended it."""
        if self.sandboxed and 128 < returncode < 128 + signal.NSIG:
            returncode = 128 - returncode
        limits = self.limits
        if returncode == -signal.SIGXCPU:
            return returncode, f"hit the CPU time limit ({limits.cpu_seconds} s)"
        if returncode == -signal.SIGXFSZ:
            return returncode, f"hit the file size limit ({limits.file_size_mb} MB)"
        return returncode, self.limit_hit(stderr_tail) or ""

    def limit_hit(self, stderr_tail: str) -> str | None:
        """Which resource limit the bot ran into, if it shows: the kernel's counters where a
        cgroup keeps them, else what the failure looked like on the bot's stderr."""
        limits = self.limits
        if self.cgroup is not None and self.cgroup.oom_kills() > 0:
            return f"hit the memory limit ({limits.memory_mb} MB)"
        if self.cgroup is not None and self.cgroup.forks_refused() > 0:
            return f"hit the process limit ({limits.processes} processes and threads)"
        said = stderr_tail[-LIMIT_EVIDENCE_BYTES:].lower()
        for limit, value, signs in (
            ("memory", f"{limits.memory_mb} MB", MEMORY_SIGNS),
            ("file size", f"{limits.file_size_mb} MB", FILE_SIZE_SIGNS),
            ("disk", f"{limits.tmp_mb} MB in its private /tmp and HOME", DISK_SIGNS),
            ("process", f"{limits.processes} processes and threads", PROCESS_SIGNS),
        ):
            if any(sign in said for sign in signs):
                return f"hit the {limit} limit ({value})"
        return None

    # -- at the end ---------------------------------------------------------------------------

    async def kill_everything(self) -> bool:
        """Kill every process of the bot, whatever it did; True when none is left."""
        if self.pid is None:
            return True
        if self.freezer is not None:
            self.freezer.thaw()  # a process frozen in a v1 cgroup does not die until thawed
        tree = proctree.descendants(self.pid)
        if self.control is not None:
            self.control.close()  # the supervisor kills the whole tree, then exits
        for pid in tree[1:]:  # and at once from here too, in case the supervisor was killed
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        gone = True
        if self.cgroup is not None:
            # Everything the bot ran is in its cgroup, which it cannot leave: no need to
            # look through every process of the machine for its user's.
            gone = await self.cgroup.kill_all() and gone
        elif self.uid is not None:
            gone = await kill_user(self.uid) and gone
        with trio.move_on_after(2.0):
            while any(proctree.alive(pid) for pid in tree if pid != self.pid):
                await trio.sleep(0.005)
        return gone

    async def release(self) -> None:
        """Give back the cgroup, the scratch directory and the user slot (after removing what
        the bot's user left in the world-writable directories, and its keys)."""
        self._released = True
        with trio.CancelScope(shield=True):
            if self.control is not None:
                self.control.close()
            if self._tree_cpu is not None:
                self._tree_cpu.close()
                self._tree_cpu = None
            if self.cgroup is not None:
                await self.cgroup.remove()
                self.cgroup = None
            if self.scratch is not None:
                await trio.to_thread.run_sync(remove_scratch, self.scratch)
                self.scratch = None
            if self.slot is not None:
                if self.writable_folder is not None:  # no set-user-id program of a bot's user
                    settings = self.isolation.settings
                    uids = range(settings.uid_base, settings.uid_base + settings.uid_count)
                    await trio.to_thread.run_sync(clear_setid, self.writable_folder, uids)
                # What its bot made: the file system's clock is coarser than time.time().
                since = self.slot.taken_at - FILE_CLOCK_SLACK
                await trio.to_thread.run_sync(remove_files_of, self.slot.uid, since)
                await clear_keys(self.slot.uid)
                self.slot.release()
                self.slot = None
