"""A bot's private writable space, and the clean-up of what a bot wrote elsewhere.

The scratch directory is a fresh directory named after the referee's pid. When the referee may
mount (it runs as root), a tmpfs of the bot's `tmp_mb` is mounted on it, so the bot's total
writes there are bounded, not only each file (`RLIMIT_FSIZE`): a bot that fills it gets ENOSPC.
A root referee's scratch folder holds the bot's private /tmp, /var/tmp, /dev/shm and /run/lock
(one tmpfs for all four), at every level: bound in the sandbox's view, or by the launcher in a
mount namespace of the bot's own. A referee that is not root gives a sandboxed bot a tmpfs of
its own for each instead, and any other bot an ordinary directory as its HOME and TMPDIR.

A bot with a user of its own can also write to the machine's world-writable directories; what
it left there is removed after the game. Scratch directories (and mounts) of a referee that died
are removed by the next one.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import tempfile
from pathlib import Path

from referee.isolation.limits import MB
from referee.isolation.sandbox import PRIVATE_PLACES

SCRATCH_PREFIX = "referee-bot-"
MNT_DETACH = 2
WORLD_WRITABLE = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"), Path("/run/lock"))


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def make_scratch(size_mb: int, uid: int | None) -> Path:
    """A new scratch directory for one bot, owned by `uid` (if given), bounded by a tmpfs of
    `size_mb` where the referee may mount one."""
    sweep_stale_scratch()
    path = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))
    if os.geteuid() == 0:
        _mount_tmpfs(path, size_mb)
    if uid is not None:
        os.chown(path, uid, uid)
    return path


def make_private_places(path: Path) -> None:
    """In a sandboxed bot's scratch folder, the folders bound to its private /tmp, /var/tmp,
    /dev/shm and /run/lock: one tmpfs for the four, writable by anyone (as /tmp is)."""
    for name in PRIVATE_PLACES.values():
        place = path / name
        place.mkdir()
        place.chmod(0o1777)


def _mount_tmpfs(path: Path, size_mb: int) -> bool:
    options = f"size={size_mb * MB},mode=0700".encode()
    done = _libc().mount(b"tmpfs", bytes(path), b"tmpfs", 0, options)
    return bool(done == 0)


def remove_scratch(path: Path) -> None:
    """Unmount (if mounted) and remove a scratch directory; never raises."""
    _libc().umount2(bytes(path), MNT_DETACH)  # fails harmlessly when nothing is mounted
    shutil.rmtree(path, ignore_errors=True)


@functools.cache
def sweep_stale_scratch() -> None:
    """Remove the scratch directories of referees that died without cleaning up (once per
    process): they are named after the referee's pid."""
    for path in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*-*"):
        pid = path.name[len(SCRATCH_PREFIX) :].split("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            remove_scratch(path)


def remove_files_of(uid: int) -> list[Path]:
    """Remove what user `uid` left at the top of the world-writable directories; returns it."""
    removed = []
    for root in WORLD_WRITABLE:
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        for entry in entries:
            try:
                owner = entry.stat(follow_symlinks=False).st_uid
            except OSError:
                continue
            if owner != uid:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                Path(entry.path).unlink(missing_ok=True)
            removed.append(Path(entry.path))
    return removed
