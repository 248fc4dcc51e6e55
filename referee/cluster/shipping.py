"""Bots shipped to the workers by content: a bot's folder is packed once (a tar archive made the
same way every time, so the same files give the same bytes), named by the SHA-256 of the archive,
and kept in each worker's cache under that name; every game unpacks it into a fresh folder.

A folder changed between two tournaments gets a new name and is sent again; an unchanged one is
already in the worker's cache and is not. Nothing here imports `distributed`: the functions run
on the coordinator (packing) and, called through Dask, on the workers (the cache).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from referee.builtin_tables import table_cache_directory

# Left out of a pack: they change whenever the bot runs, not when its author changes it.
SKIPPED_NAMES = frozenset({"__pycache__", ".git", ".mypy_cache", ".pytest_cache"})
SKIPPED_SUFFIXES = (".pyc",)
MAX_PACK_BYTES = 256 * 1024 * 1024  # compressed; a bigger bot folder should be shared instead
FOLDER_PREFIX = "referee-shipped-"  # a game's copy of a bot: PREFIX + pid + "-" + hash + ...


class PackError(ValueError):
    """A bot folder that cannot be shipped; the message names it and says why."""


@dataclass(frozen=True)
class Pack:
    """A bot folder packed for the workers: its content hash and its compressed archive."""

    digest: str
    data: bytes


def _members(folder: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_NAMES)
        here = Path(root)
        found += [here / d for d in dirs]
        found += [here / f for f in sorted(files) if not f.endswith(SKIPPED_SUFFIXES)]
    return found


def pack_folder(folder: Path) -> Pack:
    """The folder as a reproducible archive: sorted names, no owners, no times."""
    if not folder.is_dir():
        raise PackError(f"{folder}: the bot's folder does not exist")
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in _members(folder):
            info = tar.gettarinfo(str(path), arcname=path.relative_to(folder).as_posix())
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            info.pax_headers = {}
            if info.isfile():
                with path.open("rb") as file:
                    tar.addfile(info, file)
            elif info.isdir() or info.issym():
                tar.addfile(info)
            # Sockets, devices and hard links to outside are not part of a bot.
    archive = raw.getvalue()
    digest = hashlib.sha256(archive).hexdigest()
    data = gzip.compress(archive, compresslevel=6, mtime=0)
    if len(data) > MAX_PACK_BYTES:
        raise PackError(
            f"{folder}: {len(data) // 2**20} MB packed, more than {MAX_PACK_BYTES // 2**20} MB: "
            "put it on a shared filesystem ([cluster] shared_filesystem = true)"
        )
    return Pack(digest, data)


# -- the worker's side ------------------------------------------------------------------------


def cache_directory() -> Path:
    """Where a worker keeps the packs it was sent (beside the built-in bots' tables)."""
    return table_cache_directory() / "bots"


def cached_digests() -> list[str]:
    """The packs this machine holds."""
    folder = cache_directory()
    if not folder.is_dir():
        return []
    return sorted(p.name.removesuffix(".tar.gz") for p in folder.glob("*.tar.gz"))


def store_pack(digest: str, data: bytes) -> bool:
    """Keep a pack in this machine's cache (checked against its name); False if it was there."""
    folder = cache_directory()
    target = folder / f"{digest}.tar.gz"
    if target.exists():
        return False
    if hashlib.sha256(gzip.decompress(data)).hexdigest() != digest:
        raise PackError(f"a pack sent as {digest[:12]} does not have that content")
    folder.mkdir(parents=True, exist_ok=True)
    # Written aside and renamed: two games on one machine may store the same pack at once.
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".incoming-")
    with os.fdopen(fd, "wb") as file:
        file.write(data)
    os.replace(temporary, target)
    return True


def game_folder(digest: str | None) -> Path:
    """A fresh folder for one bot of one game, named after this process (see `sweep`)."""
    sweep_stale_folders()
    label = f"{digest[:12]}-" if digest else ""
    # Under the system's temporary folder, not the cache: a bot running as a user of its own
    # must be able to reach its folder, and a home directory is often closed to others.
    folder = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-{label}"))
    folder.chmod(0o755)
    return folder


@functools.cache
def sweep_stale_folders() -> None:
    """Remove the game folders of worker processes that died without removing them (once
    per process): they are named after the worker's pid."""
    for path in Path(tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}*-*"):
        pid = path.name[len(FOLDER_PREFIX) :].split("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(path, ignore_errors=True)


def unpack(digest: str) -> Path:
    """A fresh folder holding the pack `digest` (FileNotFoundError: not in the cache)."""
    data = (cache_directory() / f"{digest}.tar.gz").read_bytes()
    folder = game_folder(digest)
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data)), mode="r") as tar:
        tar.extractall(folder, filter="data")
    return folder


def empty_folder() -> Path:
    """A fresh empty folder for a bot that needs none of its own (a built-in bot)."""
    return game_folder(None)


def remove_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
