"""After a game of a bot that may write its folder (`writable_dir`): no set-user-id or
set-group-id file of a bot's user is left there.

Such a file, owned by a bot user id, would let any local user act as that id (a program of the
bot's, set-user-id, runs as its owner for whoever starts it), and so read or change what that id
owns, later games' files included. Inside the sandbox the folder is `nosuid`, so the bits do
nothing there; outside it they would, so they are cleared after each game, at every level.

The walk never follows a link (a bot's `x -> /etc` is not looked into, nor is what a link names
changed), never opens anything but a regular file or a folder (a FIFO would block, a device is
not the bot's), and changes a file only through a descriptor opened without following links and
checked again (owner, kind, bits), so a bot still running in the folder (another game of it)
cannot point the change elsewhere by swapping a name. It looks at `SCAN_ENTRIES` entries at
most: past that, what is left is left as it is (a folder that large is no bot's to write in).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

SETID = stat.S_ISUID | stat.S_ISGID
SCAN_ENTRIES = 100_000


def clear_setid(folder: Path, uids: range) -> list[Path]:
    """Clear the set-user-id and set-group-id bits of every file and folder in or below `folder`
    (the folder itself too) owned by a user id of `uids`; the paths changed."""
    cleared: list[Path] = []
    try:
        top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return cleared  # gone, or a link: nothing of the bot's to look into
    try:
        if _clear(top, uids):
            cleared.append(folder)
    finally:
        os.close(top)
    seen = 0
    for path, dirs, files, dir_fd in os.fwalk(folder, follow_symlinks=False):
        for name in [*dirs, *files]:
            seen += 1
            if seen > SCAN_ENTRIES:
                return cleared
            if _clear_entry(dir_fd, name, uids):
                cleared.append(Path(path, name))
    return cleared


def _clear_entry(dir_fd: int, name: str, uids: range) -> bool:
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    if not _wanted(info, uids):
        return False
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError:
        return False  # replaced meanwhile by a link, or gone
    try:
        return _clear(fd, uids)
    finally:
        os.close(fd)


def _wanted(info: os.stat_result, uids: range) -> bool:
    kind = stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)
    return kind and info.st_uid in uids and bool(info.st_mode & SETID)


def _clear(fd: int, uids: range) -> bool:
    """Clear the bits of the file open as `fd` if it is still one to clear."""
    try:
        info = os.fstat(fd)
        if not _wanted(info, uids):
            return False
        os.fchmod(fd, stat.S_IMODE(info.st_mode) & ~SETID)
    except OSError:
        return False
    return True
