"""Creating the referee's own files and folders without following a link that someone else
planted.

The referee writes where a bot, or another user of the machine, may have written before: the
folder `referee play` was started in (a bot's own folder, perhaps open to every user), a folder
in /tmp. A link planted there, say `referee-games -> /etc/cron.d`, would make a root referee
write wherever it leads. So every record, store, folder and page the referee makes is reached by
walking its path one folder at a time from where it starts (`/`, or the current folder for a
relative path), each opened relative to the one before:

- a folder the referee makes itself, and every folder after it, is opened without following a
  link (`O_NOFOLLOW`), so nothing can be slipped in between making it and using it;
- an existing link on the way is followed only where nobody but root or the referee's own user
  could have put it: the link and the folder holding it are theirs, and that folder is writable
  by nobody else (or sticky, as /tmp is, where nobody else may replace what they own), as the
  kernel's own `protected_symlinks` judges links in sticky folders;
- the file itself is never a link: an earlier file of that name is replaced (unlinked, then
  created anew, exclusively; or, with `write_file`, written beside it and renamed over it), and a
  link, a folder or anything else there is refused;
- a record (`create_file`) is written only in a folder of root's or the referee's user's that
  nobody else may write in (or a sticky one, as /tmp is): a `referee-games` made by another user,
  or open to every user, would let them replace the records once written (`ForeignFolder`).

What is refused raises `PlantedLink`, naming the path: nothing is written anywhere. `check_file`
and `check_folder` walk a path the same way without making or writing anything, so that a
command refuses a planted link before it starts anything (and before it says how it will run).
An SQLite file, which SQLite opens by its path, gets the same walk to its folder (`open_folder`)
and `refuse_links` for its own name and its journals'.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class PlantedLink(OSError):
    """A path the referee would write through holds a link (or other thing) it must not follow
    or replace; the message names it and why."""


class ForeignFolder(PlantedLink):
    """The folder a record would be written in is another user's, or others may write in it:
    they could replace the record once written. The message names the folder."""


def create_file(path: Path, mode: int = 0o666) -> int:
    """A new file at `path`, open for writing (a descriptor), with its missing folders made;
    raises `PlantedLink` or `ForeignFolder` (see the module docstring) or another `OSError`."""
    folder = open_folder(path.parent)
    try:
        _refuse_foreign(folder, path.parent)
        return _new_file(folder, path.name, path, mode)
    finally:
        os.close(folder)


def write_file(path: Path, data: str | bytes, *, sync: bool = False, mode: int = 0o666) -> None:
    """`path` holds `data` (text as UTF-8), whole: written beside it under a name of its own and
    renamed over it, so that a reader finds the old file or the new one (with `sync`, on disk
    before the rename: a power cut leaves one or the other too); its missing folders are made.
    Raises `PlantedLink` (see the module docstring) or another `OSError`."""
    content = data.encode("utf-8") if isinstance(data, str) else data
    folder = open_folder(path.parent)
    try:
        _refuse_other_than_file(folder, path.name, path)
        aside = f".{path.name}.{os.urandom(4).hex()}.new"
        descriptor = _new_file(folder, aside, path.parent / aside, mode)
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(content)
                if sync:
                    file.flush()
                    os.fsync(file.fileno())
            # A rename replaces whatever holds the name, a link included, and follows nothing.
            os.replace(aside, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            os.unlink(aside, dir_fd=folder)
            raise
    finally:
        os.close(folder)


def make_folder(path: Path) -> None:
    """The folder `path`, made with its missing parents where it is not there; raises
    `PlantedLink` (see the module docstring) or another `OSError`."""
    os.close(open_folder(path))


def make_new_folder(path: Path) -> None:
    """A new folder `path` (its parents made where missing); `FileExistsError` where something
    of that name is there already, which is never followed or used."""
    folder = open_folder(path.parent)
    try:
        os.mkdir(path.name, 0o777, dir_fd=folder)
    finally:
        os.close(folder)


def open_folder(path: Path) -> int:
    """The folder `path` open (a descriptor to close), made with its missing parents where it
    is not there; raises `PlantedLink` (see the module docstring) or another `OSError`."""
    found = _walk(path, make=True)
    assert found is not None  # every missing folder was made
    return found


def refuse_links(folder: Path, names: Iterable[str]) -> None:
    """Raises `PlantedLink` where one of `names` in `folder` (made where missing) is there and is
    not a regular file: the files a program such as SQLite will open by path, never a link."""
    descriptor = open_folder(folder)
    try:
        for name in names:
            _refuse_other_than_file(descriptor, name, folder / name)
    finally:
        os.close(descriptor)


def check_folder(path: Path) -> None:
    """Raises `PlantedLink` where making or using the folder `path` would be refused, making and
    writing nothing: the walk stops at the first folder that is not there yet (the referee
    makes it and those after it itself)."""
    found = _walk(path, make=False)
    if found is not None:
        os.close(found)


def check_file(path: Path) -> None:
    """Raises `PlantedLink` (or `ForeignFolder`) where `create_file(path)` would be refused,
    making and writing nothing (see `check_folder`)."""
    folder = _walk(path.parent, make=False)
    if folder is None:
        return  # its folder is not there: the referee makes it, and nothing can be in it
    try:
        _refuse_foreign(folder, path.parent)
        _refuse_other_than_file(folder, path.name, path)
    finally:
        os.close(folder)


def _walk(path: Path, *, make: bool) -> int | None:
    """The folder `path` open, each folder on the way entered as the module docstring says and
    made where missing (`make`); None where one is missing and not `make`."""
    folder = os.open("/" if path.is_absolute() else ".", DIRECTORY)
    try:
        where = Path("/" if path.is_absolute() else "")
        made = False
        for part in path.parts[1 if path.is_absolute() else 0 :]:
            where = where / part
            inner, made = _enter(folder, part, where, made, make)
            os.close(folder)
            if inner is None:
                return None
            folder = inner
    except BaseException:
        os.close(folder)
        raise
    return folder


def _enter(folder: int, name: str, where: Path, made: bool, make: bool) -> tuple[int | None, bool]:
    """The folder `name` inside `folder`, made if missing (None if missing and not `make`); and
    whether this or an earlier folder of the path was made here."""
    try:
        return os.open(name, DIRECTORY | os.O_NOFOLLOW, dir_fd=folder), made
    except FileNotFoundError:
        if not make:
            return None, made
        try:
            os.mkdir(name, 0o777, dir_fd=folder)
        except FileExistsError:  # made meanwhile by someone else: judged as found
            found, made = _enter(folder, name, where, made, make=False)
            if found is None:
                raise PlantedLink(f"{where} keeps changing: not written") from None
            return found, made
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
            _refuse_other_than_file(folder, name, path)
            os.unlink(name, dir_fd=folder)
    raise PlantedLink(f"{path} keeps being made by someone else: not written")


def _refuse_other_than_file(folder: int, name: str, path: Path) -> None:
    """Raises `PlantedLink` where `name` in `folder` is there and is not a regular file."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(info.st_mode):
        raise _planted(path, folder, name)


def _refuse_foreign(folder: int, path: Path) -> None:
    """Raises `ForeignFolder` where someone other than root or this user could replace a file
    in `folder`: its owner, or anyone it lets write (its group too, unless the group is root's
    or this user's own). A sticky folder of theirs (/tmp) lets nobody else replace their files."""
    info = os.stat(folder)
    ours = {0, os.geteuid()}
    if info.st_uid not in ours:
        whose = f"belongs to user {info.st_uid}"
    elif info.st_mode & stat.S_ISVTX:
        return
    elif info.st_mode & 0o002 or (info.st_mode & 0o020 and info.st_gid not in {0, os.getegid()}):
        whose = "can be written by other users"
    else:
        return
    shown = Path.cwd() if path == Path() else path
    raise ForeignFolder(
        f"{shown} {whose}, who could replace what is written in it: nothing written (write "
        "it in a folder of your own, or make this one root's or yours and closed to others)"
    )


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
    if stat.S_ISDIR(info.st_mode):  # where a file goes
        return PlantedLink(f"{path} is a folder: not written")
    if stat.S_ISREG(info.st_mode):  # where a folder goes
        return PlantedLink(f"{path} is a file, not a folder: not written")
    if not stat.S_ISLNK(info.st_mode):
        return PlantedLink(f"{path} is neither a file nor a folder: not written")
    return PlantedLink(
        f"{path} is a link (made by user {info.st_uid}) where someone other than root or this "
        "referee's user could have put it: not followed, nothing written (remove the link)",
    )
