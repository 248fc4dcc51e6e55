"""A bot's private writable space, and the clean-up of what a bot wrote elsewhere.

Each referee process keeps its bots' scratch folders in a private folder of its own, made fresh
in the temporary folder (`/tmp/referee-scratch-<pid>-XXXXXXXX`, mode 0700: the referee's user
alone may enter it; no bot's user needs to, since a root referee's bot reaches its scratch folder
only as its private places, bound as root). Each scratch folder is made inside it, with a random
name. When the referee may mount (it runs as root), a tmpfs of the bot's `tmp_mb` (nosuid,
nodev) is mounted on it, so the bot's total writes there are bounded, not only each file
(`RLIMIT_FSIZE`): a bot that fills it gets ENOSPC. A root referee's scratch folder holds the
bot's private /tmp, /var/tmp, /dev/shm and /run/lock (one tmpfs for all four), at every level:
bound in the sandbox's view, or by the launcher in a mount namespace of the bot's own. A referee
that is not root gives a sandboxed bot a tmpfs of its own for each instead, and any other bot an
ordinary folder as its HOME and TMPDIR.

A referee killed hard leaves its private folder behind; the next one to start sweeps it. Anyone
may create names in /tmp, so the sweep trusts nothing it finds there by its name: it takes only
a real folder (never a link) that this user made and nobody else may write to, of a referee
process that is gone; it unmounts only where /proc/self/mountinfo shows a tmpfs that a referee
mounted (named `referee-scratch`) at exactly a scratch folder's path, without following links; and
it removes the rest without following links. The private folders of referees still running are
never touched.

A bot with a user of its own does not see the machine's world-writable folders (its own private
ones are in their place); whatever it left in them anyway is removed after the game.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from referee.isolation.limits import MB
from referee.isolation.sandbox import PRIVATE_PLACES

PRIVATE_PREFIX = "referee-scratch-"  # a referee's private folder: PREFIX<pid>-<random>
PRIVATE_MODE = 0o700  # its user's alone: every bot reaches its scratch through binds made as root
SCRATCH_PREFIX = "referee-bot-"  # a bot's scratch folder inside it: PREFIX<random>
TMPFS_NAME = b"referee-scratch"  # the source that mountinfo shows for a scratch tmpfs
MNT_DETACH = 2
MS_NOSUID, MS_NODEV = 2, 4
UMOUNT_NOFOLLOW = 8
WORLD_WRITABLE = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"), Path("/run/lock"))
_private: list[Path] = []  # this process's private folder, once made


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def make_scratch(size_mb: int, uid: int | None) -> Path:
    """A new scratch directory for one bot, owned by `uid` (if given), bounded by a tmpfs of
    `size_mb` where the referee may mount one."""
    path = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=private_folder()))
    if os.geteuid() == 0:
        _mount_tmpfs(path, size_mb)
    if uid is not None:
        os.chown(path, uid, uid)
    return path


def private_folder() -> Path:
    """This referee's private folder for scratch folders, made on first use (after sweeping
    what dead referees left), and made again should it be gone or not be ours any more."""
    sweep_stale_scratch()
    if _private and _is_private(_private[0], os.getpid()):
        return _private[0]
    # Resolved: a mount point is found in mountinfo by its real path.
    path = Path(tempfile.mkdtemp(prefix=f"{PRIVATE_PREFIX}{os.getpid()}-")).resolve()
    path.chmod(PRIVATE_MODE)
    if not _private:
        atexit.register(_remove_private)
    _private[:] = [path]
    return path


def _remove_private() -> None:
    """At exit: the private folder goes too, once its bots' scratch folders are gone."""
    for path in _private:
        if not path.name.startswith(f"{PRIVATE_PREFIX}{os.getpid()}-"):
            continue  # a forked child's exit: the folder is its parent's
        try:
            path.rmdir()
        except OSError:
            continue  # not empty (a bot not yet released): the next referee sweeps it


def _is_private(path: Path, pid: int) -> bool:
    """Whether `path` is a private folder a referee of this user made (for process `pid`): a
    real folder, not a link, this user's, that nobody else may write to."""
    if not path.name.startswith(f"{PRIVATE_PREFIX}{pid}-"):
        return False
    try:
        info = path.lstat()
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.geteuid()
        and stat.S_IMODE(info.st_mode) & 0o022 == 0
    )


def make_private_places(path: Path) -> None:
    """In a root referee's scratch folder for a bot, the folders bound to its private /tmp,
    /var/tmp, /dev/shm and /run/lock (in the sandbox's view, or in the mount namespace the
    launcher makes): one tmpfs for the four, writable by anyone (as /tmp is)."""
    for name in PRIVATE_PLACES.values():
        place = path / name
        place.mkdir()
        place.chmod(0o1777)


def _mount_tmpfs(path: Path, size_mb: int) -> bool:
    options = f"size={size_mb * MB},mode=0700".encode()
    # No set-user-id program nor device node of a bot works in its private places (binds of
    # this tmpfs keep these flags).
    done = _libc().mount(TMPFS_NAME, bytes(path), b"tmpfs", MS_NOSUID | MS_NODEV, options)
    return bool(done == 0)


def remove_scratch(path: Path) -> None:
    """Unmount (if a referee's tmpfs is mounted there) and remove a scratch directory; never
    raises."""
    if path in scratch_mounts():
        _libc().umount2(bytes(path), MNT_DETACH | UMOUNT_NOFOLLOW)
    shutil.rmtree(path, ignore_errors=True)  # never follows a link, at any depth


def scratch_mounts() -> set[Path]:
    """Where a referee's scratch tmpfs is mounted, as /proc/self/mountinfo says."""
    found: set[Path] = set()
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, kind = before.split(), after.split()
        if len(fields) > 4 and kind[:2] == ["tmpfs", TMPFS_NAME.decode()]:
            found.add(Path(_unescape(fields[4])))
    return found


def _unescape(text: str) -> str:
    """mountinfo writes space, tab, newline and backslash as \\ooo."""
    return re.sub(r"\\([0-7]{3})", lambda octal: chr(int(octal[1], 8)), text)


@functools.cache
def sweep_stale_scratch() -> None:
    """Remove the private folders of referees that died without cleaning up (once per
    process); see the module docstring for what is trusted."""
    base = Path(tempfile.gettempdir()).resolve()
    try:
        entries = [entry for entry in os.scandir(base) if entry.name.startswith(PRIVATE_PREFIX)]
    except OSError:
        return
    mounts = scratch_mounts()
    for entry in entries:
        pid = entry.name[len(PRIVATE_PREFIX) :].split("-")[0]
        if not pid.isdigit() or Path(f"/proc/{pid}").exists():
            continue
        folder = base / entry.name
        if not _is_private(folder, int(pid)):
            continue  # someone else's name, a link, or open to others: never touched
        for mount in sorted(mounts):
            if mount.parent == folder and mount.name.startswith(SCRATCH_PREFIX):
                _libc().umount2(bytes(mount), MNT_DETACH | UMOUNT_NOFOLLOW)
        shutil.rmtree(folder, ignore_errors=True)


def remove_files_of(uid: int, since: float) -> list[Path]:
    """Remove what user `uid` left at the top of the world-writable directories, changed at
    `since` or later (what its bot made: nothing older, whoever had that id before); returns
    it."""
    removed = []
    for root in WORLD_WRITABLE:
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if info.st_uid != uid or info.st_ctime < since:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                Path(entry.path).unlink(missing_ok=True)
            removed.append(Path(entry.path))
    return removed
