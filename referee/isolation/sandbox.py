"""The sandbox level: a bubblewrap (`bwrap`) command line that runs a bot in its own namespaces.

What a sandboxed bot sees and may do:

- no network (a network namespace with only a loopback of its own);
- its own pid namespace: it sees only its own processes, and when the namespace's init process
  is killed (it is in the bot's process group) the kernel kills every process inside, even one
  that called `setsid()`;
- a read-only view of the system, with the private places of other people hidden behind empty
  directories (`/home`, `/root`, `/srv`, `/mnt`, `/media`, `/run`, `/var/tmp` and the opponent's
  directories), and then the things the bot needs bound back in, read-only: its own directory
  (writable only if asked), the files its command line names, the prefix of its interpreter, and
  the referee's own Python with the built-in bots;
- a private, size-limited `/tmp` (also its `HOME` and `TMPDIR`), gone when the bot ends;
- no capabilities, even when the referee runs as root.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from referee.isolation.limits import MB

BWRAP = "bwrap"
HIDDEN = ("/home", "/root", "/srv", "/mnt", "/media", "/run", "/var/tmp")
HIDDEN_SIZE = 1 * MB  # hidden places are empty; mount points of bound paths need a little room
NAMESPACES = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]


def find_bwrap() -> tuple[str | None, str]:
    """The bwrap executable if it works here, and a sentence saying what was found."""
    path = shutil.which(BWRAP)
    if path is None:
        return None, "bwrap is not installed (Debian package `bubblewrap`)"
    trial = [path, *NAMESPACES, "--cap-drop", "ALL"]
    trial += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true"]
    try:
        done = subprocess.run(trial, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"{path} cannot run: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip() or f"exit code {done.returncode}"
        return None, f"{path} does not work here: {why}"
    return path, f"{path} works (pid, network, ipc namespaces)"


def _below(path: Path, roots: Sequence[Path]) -> bool:
    """Whether absolute `path` lies strictly below one of `roots`. Compared as text: pathlib's
    `parents` and `==` cost 10 ms per bot over the few dozen paths of a sandbox."""
    text = str(path)
    return any(text != "/" and text.startswith(str(root).rstrip("/") + "/") for root in roots)


def _inside(path: Path, others: Sequence[Path]) -> bool:
    """Whether `path` is one of `others` or lies below one."""
    text = str(path)
    return any(text == str(other) for other in others) or _below(path, others)


def bwrap_argv(
    bwrap: str,
    *,
    cwd: Path,
    own: Sequence[Path],
    public: Sequence[Path],
    peers: Sequence[Path],
    writable: bool,
    tmp_mb: int,
    switch_user: bool = False,
    launcher: Sequence[Path] = (),
) -> list[str]:
    """The bwrap arguments up to and including `--`; the bot's argv follows.

    `own`: the bot's directories besides `cwd`; `public`: directories every bot may read (the
    referee's Python, built-in bots, the launcher); `peers`: the opponent's directories, hidden
    unless they are also one of this bot's own. `switch_user`: the inner launcher keeps the two
    capabilities it needs to switch to the bot's user, which loses them (and bwrap sets
    no-new-privileges, so nothing executed inside can gain any). `launcher`: the folders of the
    program that starts the bot inside the sandbox, visible whatever else is hidden (an opponent
    whose folder holds the compiled helper's cache, as the perfect bots' tables do, must not
    keep this bot from starting).
    """
    # bwrap's parent is the bot's supervisor (one thread, alive as long as anything of the bot):
    # if it dies, the sandbox's init dies, and with it the whole pid namespace.
    argv = [bwrap, *NAMESPACES, "--die-with-parent", "--cap-drop", "ALL"]
    if switch_user:
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    visible = [cwd, *own]
    hidden = [Path(h) for h in HIDDEN if Path(h).is_dir()]
    for path in hidden:
        argv += _tmpfs(path, "0755", HIDDEN_SIZE)
    argv += _tmpfs(Path("/tmp"), "1777", tmp_mb * MB)
    # A directory both bots use (one shared working directory) cannot be hidden from either;
    # one inside a place already hidden needs no tmpfs of its own.
    peers = [p for p in peers if p.is_dir() and p not in visible]
    hidden_peers = [p for p in peers if not _inside(p, [*hidden, Path("/tmp")])]
    for path in hidden_peers:
        argv += _tmpfs(path, "0755", HIDDEN_SIZE)
    fresh = [*hidden, *hidden_peers, Path("/tmp")]
    for path in public:
        argv += [*_parents(path, fresh), "--ro-bind-try", str(path), str(path)]
    for path in own:
        argv += [*_parents(path, fresh), "--ro-bind", str(path), str(path)]
    argv += [*_parents(cwd, fresh), "--bind" if writable else "--ro-bind", str(cwd), str(cwd)]
    # An opponent's directory inside one of ours (or inside a public one) is hidden again.
    rehidden = [p for p in peers if _inside(p, [*visible, *public])]
    for path in rehidden:
        argv += _tmpfs(path, "0755", HIDDEN_SIZE)
    for path in launcher:
        if _inside(path, [*hidden, *hidden_peers, *rehidden]):
            argv += [*_parents(path, [*fresh, *rehidden]), "--ro-bind", str(path), str(path)]
    for path in [*hidden, *hidden_peers, *rehidden]:
        argv += ["--remount-ro", str(path)]
    argv += ["--chdir", str(cwd), "--"]
    return argv


def _tmpfs(path: Path, mode: str, size: int) -> list[str]:
    return ["--perms", mode, "--size", str(size), "--tmpfs", str(path)]


def _parents(path: Path, fresh: Sequence[Path]) -> list[str]:
    """Create the directories leading to `path` inside a fresh tmpfs, searchable by anyone
    (bwrap would make them private to root, which a bot with a user of its own cannot enter)."""
    argv: list[str] = []
    for parent in reversed(path.parents):
        if _below(parent, fresh):
            argv += ["--perms", "0755", "--dir", str(parent)]
    return argv
