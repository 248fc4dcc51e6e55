"""The files of an export, written again only where they change, and the files of the last
export that this one no longer makes removed.

An export is run again and again (after each week's games) into a folder a web server
publishes or a sync tool copies: a file rewritten with the same bytes gets a new time and is
copied again, and a page that is gone (a bot's games now fitting on fewer pages, a replay left
out) would stay, linked from nowhere. The folder keeps a manifest of the files the export wrote
(`MANIFEST`), and only those are ever removed: anything else in the folder is someone else's.
Every file is read, written and removed without following a link planted in the folder.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from referee.nofollow import open_folder, write_file

MANIFEST = ".referee-export.json"


@dataclass
class ExportFiles:
    out: Path
    written: int = 0  # new or changed
    unchanged: int = 0
    removed: int = 0
    names: set[str] = field(default_factory=set)

    @property
    def count(self) -> int:
        """The files the export holds now."""
        return len(self.names)

    def write(self, name: str, text: str) -> None:
        """`name` (relative, with `/`) holds `text`; written only if it held something else."""
        self.names.add(name)
        data = text.encode("utf-8")
        if _read(self.out / name) == data:
            self.unchanged += 1
            return
        write_file(self.out / name, data)  # its folders made, never through a planted link
        self.written += 1

    def finish(self) -> None:
        """Remove what the last export wrote and this one did not, then keep the manifest."""
        for name in sorted(_manifest(self.out) - self.names):
            if _remove(self.out, name):
                self.removed += 1
        listing = json.dumps(sorted(self.names), indent=0) + "\n"
        write_file(self.out / MANIFEST, listing)


def _read(path: Path) -> bytes | None:
    """The file's bytes, or None if there is no such regular file."""
    try:
        folder = open_folder(path.parent)
    except FileNotFoundError:
        return None
    try:
        fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError:  # missing, or a link: written over (write_file replaces the name)
        return None
    finally:
        os.close(folder)
    with os.fdopen(fd, "rb") as file:
        # A fifo or a device put there is not a page: never read (it could block), replaced.
        return file.read() if stat.S_ISREG(os.fstat(fd).st_mode) else None


def _manifest(out: Path) -> set[str]:
    """The names the last export wrote: only plain relative paths inside the folder (a
    manifest edited to name `../x` or `/etc/x` names nothing)."""
    raw = _read(out / MANIFEST)
    if raw is None:
        return set()
    try:
        names = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return set()
    if not isinstance(names, list):
        return set()
    kept = set()
    for name in names:
        if not isinstance(name, str) or not name:
            continue
        parts = PurePosixPath(name).parts
        if name.startswith("/") or ".." in parts or "\\" in name or name == MANIFEST:
            continue
        kept.add(name)
    return kept


def _remove(out: Path, name: str) -> bool:
    """Remove the file (never what a link points to), and the folders below `out` that this
    leaves empty (replays/N, then replays)."""
    path = out / name
    try:
        folder = open_folder(path.parent)
    except OSError:
        return False
    try:
        os.unlink(path.name, dir_fd=folder)  # a link is removed, not followed
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return False
    finally:
        os.close(folder)
    for depth in range(len(PurePosixPath(name).parts) - 1):
        try:
            path.parents[depth].rmdir()  # refused while anything, anyone's, is in it
        except OSError:
            break
    return True
