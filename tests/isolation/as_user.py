"""Run a command as another user (not root), with the referee's own Python within its reach.

Run as root: `python as_user.py UID FOLDER... -- COMMAND...`. The referee's Python may lie in a
home others may not enter (pyenv under a 0700 /root): in a mount namespace of its own, each
FOLDER (the interpreter's prefix) is shown again at its own path in a fresh folder above it
that anyone may enter, in place of the private home, so that a referee run as an ordinary user
starts as it would where it had installed its own Python. Nothing else changes: the command
runs as UID (group UID, no others), with no capability, and sees the machine as that user does.
"""

from __future__ import annotations

import ctypes
import os
import sys
import tempfile
from pathlib import Path

CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 1 << 18


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


def mount(source: str | None, target: str, kind: str | None, flags: int, data: str = "") -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(_bytes(source), target.encode(), _bytes(kind), flags, data.encode()) != 0:
        raise OSError(ctypes.get_errno(), f"mount {source} on {target}")


def closed_to(path: Path) -> Path | None:
    """The first folder on the way to `path` that others may not enter (None: all may)."""
    for folder in reversed(path.parents):
        if not os.stat(folder).st_mode & 0o001:
            return folder
    return None


def show(folders: list[Path]) -> None:
    """Each folder reachable at its own path, past the private home it lies in."""
    stage = Path(tempfile.mkdtemp(prefix="as-user-stage-"))
    kept = []
    for number, folder in enumerate(folders):
        closed = closed_to(folder)
        if closed is None:
            continue
        aside = stage / str(number)
        aside.mkdir()
        mount(str(folder), str(aside), None, MS_BIND | MS_REC)
        kept.append((closed, folder, aside))
    for closed in dict.fromkeys(closed for closed, _, _ in kept):
        mount("tmpfs", str(closed), "tmpfs", 0, "mode=0755")
    for _, folder, aside in kept:
        os.umask(0o022)
        folder.mkdir(parents=True, exist_ok=True)  # in the fresh folder: anyone may enter
        mount(str(aside), str(folder), None, MS_BIND | MS_REC)


def main() -> None:
    uid = int(sys.argv[1])
    at = sys.argv.index("--")
    folders = [Path(folder) for folder in sys.argv[2:at]]
    command = sys.argv[at + 1 :]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    show(folders)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
