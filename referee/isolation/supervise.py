"""The supervisor: one small process per bot that owns the bot's whole process tree.

Run as a script, never imported by the referee:
`python -I -S supervise.py CONTROL_FD [--thaw PATH VALUE]... -- STATUS_FD OPTION... -- ARGV...`,
where what follows the first `--` are the launcher's own arguments (see `launch.py`): the forked
child runs the launcher's code, which confines it and executes ARGV, so a bot costs one
interpreter start before its own, not two. It imports a few built-in modules only (no `json`,
no `contextlib`: every millisecond here is one more before each bot's start), and starts in a
few milliseconds.

Why it exists: a bot may leave its process group (`setpgid`, `setsid`, a double fork), so
neither the group nor the parent links from the referee find everything it started. The
supervisor marks itself a child subreaper (`PR_SET_CHILD_SUBREAPER`): every process the bot
orphans is re-parented to it, so its descendants are always the bot's whole tree. And the
referee may die (even by SIGKILL): the supervisor holds one end of a socket whose other end only
the referee holds; when that end closes, for whatever reason, the supervisor kills the whole tree
and exits, so no bot outlives its referee, frozen or not.

What it does, in order:
1. becomes a subreaper, forks the bot (which gets a process group of its own and none of the
   supervisor's descriptors but its standard streams and the launcher's status pipe), then lets
   go of the bot's standard streams, so the bot's end of output is seen when the bot closes it;
2. reaps every child that ends (the bot's orphans included);
3. when the bot's first process ends, or the control socket says `kill` or reaches its end, it
   thaws what `--thaw` names, kills every descendant until none is left, and exits with the
   bot's own status (the same exit code, or the same signal), so the referee sees the bot's exit.

`--thaw PATH VALUE`: a file to write before killing (a frozen cgroup's processes do not die
until thawed).
"""

from __future__ import annotations

import ctypes
import os
import resource
import select
import signal
import sys
import time

# typing is for the type checker only: importing it costs 4 ms of each bot's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

PR_SET_CHILD_SUBREAPER = 36
USAGE = "supervise.py CONTROL_FD [--thaw PATH VALUE]... -- STATUS_FD OPTION... -- ARGV..."
KILL_ROUNDS_LIMIT = 10.0  # seconds; a tree that cannot be killed in that time is left to init


def become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        os.write(2, b"referee-supervise: cannot become a subreaper\n")


def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(c) for c in f.read().split()]
        except OSError:
            continue
    return found


def descendants(pid: int) -> list[int]:
    seen: list[int] = []
    todo = children(pid)
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.append(current)
            todo += children(current)
    return seen


def reap() -> list[tuple[int, int]]:
    """Every child that has ended, as (pid, wait status)."""
    ended: list[tuple[int, int]] = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return ended
        if pid == 0:
            return ended
        ended.append((pid, status))


def thaw(files: list[tuple[str, str]]) -> None:
    for path, value in files:
        try:
            with open(path, "w") as f:
                f.write(value)
        except OSError:
            continue


def kill_tree(thaw_files: list[tuple[str, str]]) -> list[tuple[int, int]]:
    """SIGKILL every descendant until none is left (a killed process cannot fork any more, and
    what it orphans comes to us, so this converges); returns what was reaped meanwhile."""
    thaw(thaw_files)
    reaped: list[tuple[int, int]] = []
    deadline = time.monotonic() + KILL_ROUNDS_LIMIT
    while time.monotonic() < deadline:
        tree = descendants(os.getpid())
        reaped += reap()
        if not tree:
            break
        for pid in tree:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                continue
        time.sleep(0.001)
    return reaped + reap()


def load_launcher() -> Any:
    """launch.py, beside this file (`-I` leaves this directory off sys.path)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import launch  # type: ignore[import-not-found]

    return launch


def start_bot(launch_arguments: list[str], control_fd: int) -> int:
    launcher = load_launcher()
    pid = os.fork()
    if pid:
        return pid
    os.close(control_fd)
    os.setpgid(0, 0)  # the freezer's and the referee's signals go to the bot, not to us
    signal.set_wakeup_fd(-1)
    for number in (signal.SIGCHLD, signal.SIGPIPE, signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    status_fd, *options = launch_arguments
    spec, argv = launcher.parse_options(options)
    launcher.run(int(status_fd), spec, argv)  # executes the bot; never returns
    os._exit(127)


def let_go_of_descriptors(keep: set[int]) -> None:
    """Drop the bot's standard streams and the launcher's status pipe: only the bot holds them."""
    null = os.open(os.devnull, os.O_RDWR)
    for std in (0, 1, 2):
        os.dup2(null, std)
    os.close(null)
    for fd in map(int, os.listdir("/proc/self/fd")):
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                continue


def exit_like(status: int | None) -> NoReturn:
    """Exit with the bot's wait status: its exit code, or death by its signal (no core file)."""
    if status is None:
        os._exit(0)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if number not in (signal.SIGKILL, signal.SIGSTOP):  # those cannot be caught anyway
            signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.waitstatus_to_exitcode(status))


def supervise(control_fd: int, thaw_files: list[tuple[str, str]], command: list[str]) -> NoReturn:
    become_subreaper()
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)  # only the control socket ends a supervisor
    bot = start_bot(command, control_fd)
    let_go_of_descriptors({control_fd, wake_read, wake_write})
    waiting = select.poll()
    for fd in (control_fd, wake_read):
        waiting.register(fd, select.POLLIN)
    status: int | None = None
    while status is None:
        # poll, not select: a referee running hundreds of bots hands out descriptor numbers
        # above select's limit of 1024.
        ready = [fd for fd, _ in waiting.poll()]
        if wake_read in ready:
            try:  # noqa: SIM105 - importing contextlib for suppress() costs 3 ms per bot
                os.read(wake_read, 4096)  # only a wake-up: what ended is asked of waitpid
            except BlockingIOError:
                pass
        for pid, ended in reap():
            if pid == bot:
                status = ended
        if control_fd in ready and status is None:
            try:
                said = os.read(control_fd, 64)
            except OSError:
                said = b""
            if not said or b"kill" in said:
                break
    for pid, ended in kill_tree(thaw_files):
        if pid == bot and status is None:
            status = ended
    exit_like(status)


def main() -> NoReturn:
    args = sys.argv[1:]
    try:
        control_fd, thaw_files, at = int(args[0]), [], 1
        while args[at] == "--thaw":
            thaw_files.append((args[at + 1], args[at + 2]))
            at += 3
        if args[at] != "--" or "--" not in args[at + 2 :]:
            raise ValueError("no launcher arguments")
    except (IndexError, ValueError) as exc:
        os.write(2, f"usage: {USAGE} ({exc})\n".encode())
        os._exit(2)
    supervise(control_fd, thaw_files, args[at + 1 :])


if __name__ == "__main__":
    main()
