"""Creating the referee's own files without following a link that someone else planted.

A record is written where a bot, or another user of the machine, may have written before: the
folder `referee play` was started in (a bot's own folder, perhaps open to every user), a folder
in /tmp. A link planted there, say `referee-games -> /etc/cron.d`, would make a root referee
write wherever it leads. So `create_file` walks the path one folder at a time from where it
starts (`/`, or the current folder for a relative path), each opened relative to the one before:

- a folder the referee makes itself, and every folder after it, is opened without following a
  link (`O_NOFOLLOW`), so nothing can be slipped in between making it and using it;
- an existing link on the way is followed only where nobody but root or the referee's own user
  could have put it: the link and the folder holding it are theirs, and that folder is writable
  by nobody else (or sticky, as /tmp is, where nobody else may replace what they own), as the
  kernel's own `protected_symlinks` judges links in sticky folders;
- the file itself is never a link: an earlier file of that name is replaced (unlinked, then
  created anew, exclusively), and a link, a folder or anything else there is refused.

What is refused raises `PlantedLink`, naming the path: nothing is written anywhere.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class PlantedLink(OSError):
    """A path the referee would write through holds a link (or other thing) it must not follow
    or replace; the message names it and why."""


def create_file(path: Path, mode: int = 0o666) -> int:
    """A new file at `path`, open for writing (a descriptor), with its missing folders made;
    raises `PlantedLink` (see the module docstring) or another `OSError`."""
    folder = os.open("/" if path.is_absolute() else ".", DIRECTORY)
    try:
        where = Path("/" if path.is_absolute() else "")
        made = False
        for part in path.parent.parts[1 if path.is_absolute() else 0 :]:
            where = where / part
            inner, made = _enter(folder, part, where, made)
            os.close(folder)
            folder = inner
        return _new_file(folder, path.name, path, mode)
    finally:
        os.close(folder)


def _enter(folder: int, name: str, where: Path, made: bool) -> tuple[int, bool]:
    """The folder `name` inside `folder`, made if missing; and whether this or an earlier folder
    of the path was made here."""
    try:
        return os.open(name, DIRECTORY | os.O_NOFOLLOW, dir_fd=folder), made
    except FileNotFoundError:
        os.mkdir(name, 0o777, dir_fd=folder)
        return os.open(name, DIRECTORY | os.O_NOFOLLOW, dir_fd=folder), True
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        if made or not _trusted_link(folder, name):
            raise _planted(where, folder, name) from None
        return os.open(name, DIRECTORY, dir_fd=folder), made


def _new_file(folder: int, name: str, path: Path, mode: int) -> int:
    """A new file `name` in `folder`; an earlier regular file of that name is replaced."""
    for _ in range(2):
        try:
            return os.open(name, NEW_FILE, mode, dir_fd=folder)
        except FileExistsError:
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode):
                raise _planted(path, folder, name) from None
            os.unlink(name, dir_fd=folder)
    raise PlantedLink(f"{path} keeps being made by someone else: not written")


def _trusted_link(folder: int, name: str) -> bool:
    """Whether the link `name` in `folder` can only have been put there by root or this user."""
    trusted = {0, os.geteuid()}
    link = os.stat(name, dir_fd=folder, follow_symlinks=False)
    holder = os.fstat(folder)
    open_to_others = holder.st_mode & 0o022 and not holder.st_mode & stat.S_ISVTX
    return (
        stat.S_ISLNK(link.st_mode)
        and link.st_uid in trusted
        and holder.st_uid in trusted
        and not open_to_others
    )


def _planted(path: Path, folder: int, name: str) -> PlantedLink:
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return PlantedLink(f"{path} changed while it was being opened: not written")
    if not stat.S_ISLNK(info.st_mode):
        what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        return PlantedLink(f"{path} is {what}: not written")
    return PlantedLink(
        f"{path} is a link (made by user {info.st_uid}) where someone other than root or this "
        "referee's user could have put it: not followed, nothing written (remove the link)",
    )
