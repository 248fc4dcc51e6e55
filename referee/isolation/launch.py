"""The launcher: confines its own process, then becomes the bot (or the sandbox that runs it).

Run as a program: `python -I -S launch.py STATUS_FD OPTION... -- ARGV` (the referee imports it
only for `options_of`). It uses a few built-in modules only (not even `json`: its options are
plain arguments), so it starts in a few milliseconds and works inside the sandbox. Doing this
work in a separate program rather than in a `preexec_fn` keeps the referee safe: trio starts
processes from a worker thread, and running Python code between fork and exec in a
multi-threaded parent can deadlock.

In order, each step before the next: join the bot's cgroups, set the resource limits, take
namespaces of its own where the referee is root and runs no sandbox (network: `--network none`; IPC:
`--ipc private`; mounts: `--place`, `--keep`, `--readonly`: its private places, the folders it needs
in them shown again, then its own folders that its user could write made read-only), set a private
umask, join a session keyring of its own, drop to the bot's user and clear that user's keys, enter a
Landlock domain of its own (`--landlock`), then install the system-call filter (`--seccomp`) and
exec ARGV (the kernel steps are `kernel.py`'s). Failures are written as one line to STATUS_FD
(`infra: ...` for a failure of the machine, `start: ...` for a program that cannot be executed) and
the launcher exits with 127. Without a sandbox the parent reads STATUS_FD up to its end, which comes
with the successful exec (the descriptor is close-on-exec). In front of the sandbox (`"stage":
"outer"`) the descriptor is passed on to the inner launcher, which writes `ready` just before its
exec, because the sandbox keeps the descriptor open. The outer launcher takes no keyring, no domain
and no filter (the sandbox program it executes needs the calls the filter closes); the inner one,
which executes the bot, does all three.

The sandbox's own processes (its monitor outside, its init inside) keep their standard input and
output open for as long as the sandbox lives, so a bot that closes its output would not be seen
to. In front of the sandbox, the outer launcher therefore parks the bot's stdin and stdout on
`PARKED_FDS`, which bwrap passes on to the sandboxed program but closes in its own processes, and
puts /dev/null in their place; the inner launcher moves them back.

The options, each at most once unless said: `--stage only|outer|inner` (default `only`), `--uid N`,
`--gid N`, `--network none`, `--ipc private`, `--cgroup PROCS_FILE` (repeated: one per hierarchy),
`--rlimit NAME SOFT HARD` (repeated; HARD `-` is the same as SOFT), `--place SOURCE PLACE`
(repeated: SOURCE is bound over PLACE in a mount namespace of its own), `--keep PATH` (repeated: a
folder inside a place, shown again), `--readonly FOLDER` (repeated: made read-only in that
namespace, as the bot sees it), `--proc NAME,...` (a /proc of its own in that namespace, showing no
other user's processes, with these entries of it shown empty), `--landlock FS,SCOPED` (the Landlock
ruleset's handled file-system rights and scopes, see `landlock.py`; without it, where the kernel
has no Landlock, no domain), `--seccomp HEX` (the filter's program; a launcher that executes the
bot refuses to without one).
"""

from __future__ import annotations

import os
import resource
import signal
import sys
import warnings  # noqa: F401 - see below

# `warnings` is imported now, while the launcher can still read the standard library:
# `os.execvp` imports it to search the PATH, which is after the switch to the bot's user, who
# may not be able to read the interpreter's files (an interpreter in root's home). The kernel
# steps beside this file (ctypes among them) are imported now for the same reason: by the
# package's name where the referee imports this module, by the file's otherwise.
if __package__:
    from referee.isolation import kernel
else:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import kernel  # type: ignore[import-not-found, no-redef]

# typing is for the type checker only: importing it costs 4 ms of each bot's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

EXIT_LAUNCH_FAILED = 127
PARKED_FDS = (100, 101)  # where stdin and stdout wait while bwrap sets the sandbox up


def fail(status_fd: int, kind: str, message: str) -> NoReturn:
    line = f"{kind}: {message}\n".encode("utf-8", "backslashreplace")
    for fd, data in ((status_fd, line), (2, b"referee-launch: " + line)):
        try:
            os.write(fd, data)
        except OSError:
            continue  # nobody to tell: the exit code still says it
    os._exit(EXIT_LAUNCH_FAILED)


def join_cgroups(status_fd: int, paths: list[str]) -> None:
    for path in paths:
        try:
            with open(path, "w") as procs:
                procs.write("0")
        except OSError as exc:
            fail(status_fd, "infra", f"cannot join cgroup {path}: {exc.strerror or exc}")


def set_limits(status_fd: int, limits: list[tuple[str, int, int | None]]) -> None:
    for name, soft, hard in limits:
        number = getattr(resource, name)
        _, current_hard = resource.getrlimit(number)
        wanted_hard = soft if hard is None else hard
        if os.geteuid() != 0 and current_hard != resource.RLIM_INFINITY:
            # Without privileges a hard limit can only be lowered: keep within the current one.
            wanted_hard = min(wanted_hard, current_hard)
        try:
            resource.setrlimit(number, (min(soft, wanted_hard), wanted_hard))
        except (OSError, ValueError) as exc:
            fail(status_fd, "infra", f"cannot set {name} to {soft}: {exc}")


CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS, SIOCSIFFLAGS = 0x8913, 0x8914
IFF_UP_RUNNING = 0x1 | 0x40


def private_network(status_fd: int) -> None:
    """A network namespace of its own, with only its loopback, up (Python 3.11 has no
    os.unshare: the C library's, through ctypes; these modules are imported only here, for the
    bots that run without a sandbox under a root referee)."""
    import ctypes
    import fcntl
    import socket
    import struct

    if ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWNET) != 0:
        fail(
            status_fd,
            "infra",
            f"cannot make a network namespace: {os.strerror(ctypes.get_errno())}",
        )
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            request = struct.pack("16sH14x", b"lo", 0)
            flags = struct.unpack("16sH14x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
            fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP_RUNNING))
    except OSError as exc:
        fail(status_fd, "infra", f"cannot bring the loopback up: {exc.strerror or exc}")


def private_ipc_and_mounts(spec: dict[str, Any]) -> None:
    """An IPC namespace of its own, and a mount namespace with its private places and its
    read-only folders (see kernel.py); where the referee is root and runs no sandbox."""
    if spec.get("ipc") == "private":
        kernel.unshare(kernel.CLONE_NEWIPC)
    places, keep, readonly = spec.get("places", []), spec.get("keep", []), spec.get("readonly", [])
    if places or readonly or "proc" in spec:
        cwd = os.getcwd()
        kernel.private_mounts(places, keep, readonly, spec.get("proc"))
        os.chdir(cwd)  # the folder at its path in the new view, not the one covered


def kernel_step(status_fd: int, step: Any, *args: Any) -> None:
    """One of the kernel steps; its failure is the machine's."""
    try:
        step(*args)
    except (OSError, ValueError, kernel.KernelRefused) as exc:
        fail(status_fd, "infra", str(exc))


def install_filter(hexadecimal: str) -> None:
    kernel.install_filter(bytes.fromhex(hexadecimal))


def own_domain(ruleset: str) -> None:
    handled_fs, scoped = (int(number) for number in ruleset.split(","))
    kernel.own_domain(handled_fs, scoped)


def drop_privileges(status_fd: int, uid: int | None, gid: int | None) -> None:
    if uid is None:
        return
    try:
        os.setgroups([])
        os.setgid(uid if gid is None else gid)
        os.setuid(uid)
    except OSError as exc:
        fail(status_fd, "infra", f"cannot switch to user {uid}: {exc.strerror or exc}")


def executable(program: str) -> bool:
    """Whether execvp would find `program` and may run it (checked inside the sandbox, where
    the file system differs from the referee's, before reporting `ready`)."""
    if "/" in program:
        return os.access(program, os.X_OK)
    path = os.environ.get("PATH", os.defpath)
    return any(os.access(os.path.join(d or ".", program), os.X_OK) for d in path.split(":"))


def park_stdio() -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for std, parked in zip((0, 1), PARKED_FDS, strict=True):
        os.dup2(std, parked)
        os.dup2(null, std)
    os.close(null)


def unpark_stdio() -> None:
    for std, parked in zip((0, 1), PARKED_FDS, strict=True):
        os.dup2(parked, std)
        os.close(parked)


def default_signals() -> None:
    """Every signal back to its default action and unblocked, as a program started from a shell
    gets them: this interpreter ignores SIGPIPE and SIGXFSZ, and what is ignored survives exec
    (a bot of another language would never be stopped by SIGPIPE or by its file-size limit)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    for number in signal.valid_signals():
        if number in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):  # the C library's own real-time signals
            continue


def run(status_fd: int, spec: dict[str, Any], argv: list[str]) -> NoReturn:
    stage = spec.get("stage", "only")
    if stage == "outer":
        park_stdio()  # before the limits: a low open-files limit must not stop it
    elif stage == "inner":
        unpark_stdio()
    join_cgroups(status_fd, spec.get("cgroup_procs", []))
    set_limits(status_fd, spec.get("rlimits", []))
    if spec.get("network") == "none":
        private_network(status_fd)
    kernel_step(status_fd, private_ipc_and_mounts, spec)
    if stage != "outer":
        if not spec.get("seccomp"):
            fail(status_fd, "infra", "no system-call filter was given for the bot")
        os.umask(0o077)  # what the bot writes is its own (bwrap sets its own modes)
        kernel_step(status_fd, kernel.join_session_keyring)  # as root: root's quota
    drop_privileges(status_fd, spec.get("uid"), spec.get("gid"))
    if stage != "outer" and spec.get("uid") is not None:
        kernel_step(status_fd, kernel.clear_user_keys, spec["uid"])
    # The inner launcher reports through the status pipe too; the bot never sees it.
    os.set_inheritable(status_fd, stage == "outer")
    if stage != "outer" and spec.get("landlock"):  # no other process within its reach
        kernel_step(status_fd, own_domain, spec["landlock"])
    if stage != "outer":  # before `ready`: a filter that cannot be installed is reported
        kernel_step(status_fd, install_filter, spec["seccomp"])
    if stage == "inner":
        if not executable(argv[0]):
            # The referee found the program outside and checked its user may run it: what
            # hides it here is the sandbox's plan, the referee's fault (the game is void), never
            # the bot's. A program that then fails to execute (a bad binary) is the bot's.
            fail(status_fd, "infra", f"{argv[0]!r} cannot be executed inside the sandbox")
        os.write(status_fd, b"ready\n")
    default_signals()
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        kind = "infra" if stage == "outer" else "start"
        fail(status_fd, kind, f"cannot execute {argv[0]!r}: {exc.strerror or exc}")


def parse_options(args: list[str]) -> tuple[dict[str, Any], list[str]]:
    """The options before `--` as a spec (see the module docstring), and what follows it."""
    spec: dict[str, Any] = {
        "cgroup_procs": [],
        "rlimits": [],
        "places": [],
        "keep": [],
        "readonly": [],
    }
    at = 0
    while args[at] != "--":
        option = args[at]
        if option == "--rlimit":
            name, soft, hard = args[at + 1 : at + 4]
            spec["rlimits"].append((name, int(soft), None if hard == "-" else int(hard)))
            at += 4
            continue
        if option == "--place":
            source, place = args[at + 1 : at + 3]
            spec["places"].append((source, place))
            at += 3
            continue
        value = args[at + 1]
        if option == "--cgroup":
            spec["cgroup_procs"].append(value)
        elif option in ("--keep", "--readonly"):
            spec[option[2:]].append(value)
        elif option == "--proc":
            spec["proc"] = [name for name in value.split(",") if name]
        elif option in ("--uid", "--gid"):
            spec[option[2:]] = int(value)
        elif option in ("--stage", "--network", "--ipc", "--landlock", "--seccomp"):
            spec[option[2:]] = value
        else:
            raise ValueError(f"unknown option {option}")
        at += 2
    return spec, args[at + 1 :]


def options_of(spec: dict[str, Any]) -> list[str]:
    """The options that `parse_options` reads back as `spec` (used by the referee, which
    imports this module for this only)."""
    args = ["--stage", spec.get("stage", "only")]
    for name in ("uid", "gid", "network", "ipc", "landlock", "seccomp"):
        if spec.get(name) is not None:
            args += [f"--{name}", str(spec[name])]
    for path in spec.get("cgroup_procs", []):
        args += ["--cgroup", path]
    for name, soft, hard in spec.get("rlimits", []):
        args += ["--rlimit", name, str(soft), "-" if hard is None else str(hard)]
    for source, place in spec.get("places", []):
        args += ["--place", source, place]
    for path in spec.get("keep", []):
        args += ["--keep", path]
    for path in spec.get("readonly", []):
        args += ["--readonly", path]
    if spec.get("proc") is not None:
        args += ["--proc", ",".join(spec["proc"])]
    return [*args, "--"]


def main() -> NoReturn:
    try:
        status_fd = int(sys.argv[1])
        spec, argv = parse_options(sys.argv[2:])
    except (IndexError, ValueError) as exc:
        os.write(2, f"usage: launch.py STATUS_FD OPTION... -- ARGV... ({exc})\n".encode())
        os._exit(2)
    if not argv:
        os.write(2, b"usage: launch.py STATUS_FD OPTION... -- ARGV...\n")
        os._exit(2)
    run(status_fd, spec, argv)


if __name__ == "__main__":
    main()
