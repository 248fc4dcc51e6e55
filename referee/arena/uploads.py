"""Uploads, kept byte for byte: each one becomes DIR/uploads/SHA256 and a new version.

An upload is received into a temporary file beside the others (`Incoming`), hashed and counted
as it arrives and refused as soon as it passes `[uploads] max_bytes`; once whole it is synced,
made read-only (0444) and renamed to its SHA-256, so a file of the uploads folder is always
whole and never changes (two uploads of the same bytes share one file). Only then is it
recorded (`record_upload`): in one transaction, the account's upload count for the last hour is
checked and counted (`ratelimits.upload_key`), the `uploads` row and the next version of the
account (v1, v2, ...) are written. When uploads are closed (`deadline.uploads_closed`: the
deadline has passed, the staff froze the arena, or the final's versions are pinned) the upload
is still kept and recorded, as a `late` version that is never built or played.

The file name is the student's, untrusted: it is stored as given (at most `MAX_NAME`
characters) and never used as a path; only its ending says what the file is (an archive, or
a lone file), and a lone file is unpacked under `lone_file_name`, made of safe characters.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import BinaryIO

import trio

from referee.arena import ratelimits
from referee.arena.config import ArenaConfig
from referee.arena.deadline import uploads_closed
from referee.arena.rows import Version
from referee.arena.store import ArenaStore, stamp, transaction
from referee.tournament.layouts import ARCHIVE_SUFFIXES

MAX_NAME = 255  # characters of a file name kept
INCOMING_PREFIX = ".incoming-"
STALE_INCOMING = 3600.0  # seconds: an unfinished upload this old was a dead server's
HOUR = timedelta(hours=1)
_READ = 1 << 16


class UploadRefused(Exception):
    """An upload that is not taken: `status` is the HTTP status, the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def too_large(max_bytes: int) -> UploadRefused:
    return UploadRefused(413, f"The file is larger than the arena takes ({max_bytes:,} bytes).")


def too_many(per_hour: int) -> UploadRefused:
    return UploadRefused(
        429, f"You have uploaded {per_hour} times in the last hour, the most the arena takes: "
        "wait a little, then upload again."
    )  # fmt: skip


@dataclass(frozen=True)
class Kept:
    """An upload on disk: DIR/uploads/SHA256."""

    sha256: str
    size: int


class Incoming:
    """One upload being received: a temporary file in the uploads folder (0600, a name of its
    own), its bytes hashed and counted as they are written. `keep()` makes it the uploads
    folder's file SHA256; `discard()` drops it. Blocking: run it in a worker thread."""

    def __init__(self, folder: Path, max_bytes: int) -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self.size = 0
        self._digest = hashlib.sha256()
        fd, name = tempfile.mkstemp(prefix=INCOMING_PREFIX, dir=folder)
        self.path = Path(name)
        self._file = os.fdopen(fd, "wb")

    def write(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > self.max_bytes:
            raise too_large(self.max_bytes)
        self._digest.update(chunk)
        self._file.write(chunk)

    def copy_from(self, source: BinaryIO) -> None:
        while chunk := source.read(_READ):
            self.write(chunk)

    def keep(self) -> Kept:
        """Synced, read-only and renamed to its hash (atomically: the name appears only once
        the bytes are all on disk); the folder synced too, so the name survives a power cut."""
        if self.size == 0:
            self.discard()
            raise UploadRefused(400, "The file is empty.")
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        digest = self._digest.hexdigest()
        os.chmod(self.path, 0o444)
        os.replace(self.path, self.folder / digest)  # the same bytes, if it was there already
        _sync_folder(self.folder)
        return Kept(digest, self.size)

    def discard(self) -> None:
        self._file.close()
        self.path.unlink(missing_ok=True)


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sweep_incoming(folder: Path, now: float | None = None) -> int:
    """Remove the unfinished uploads a stopped server left behind (older than an hour, so
    that one being received right now stays); returns how many."""
    now = time.time() if now is None else now
    removed = 0
    for path in folder.glob(INCOMING_PREFIX + "*"):
        try:
            if now - path.lstat().st_mtime > STALE_INCOMING:
                path.unlink()
                removed += 1
        except FileNotFoundError:
            continue
    return removed


def checked_name(name: str | None) -> str:
    """The file name to record: as given, at most `MAX_NAME` characters; refused if none."""
    if name is None or not name.strip():
        raise UploadRefused(400, "Name the file you upload (its name says what it is).")
    return name[:MAX_NAME]


def archive_kind(name: str) -> str | None:
    """'zip' or 'tar' for an archive's name, None for a lone file."""
    lowered = name.lower()
    if not lowered.endswith(ARCHIVE_SUFFIXES):
        return None
    return "zip" if lowered.endswith(".zip") else "tar"


def lone_file_name(name: str) -> str:
    """The name a lone uploaded file gets in its version's folder: the last part of the name
    given, in letters, digits, `.`, `_` and `-` (others become `_`), never hidden, never
    empty: `../../x.py` is `x.py`, `<b>bot</b>.py` is `b_.py`."""
    last = name.replace("\\", "/").rsplit("/", 1)[-1]
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in last)
    return safe.lstrip(".")[:MAX_NAME] or "bot"


def record_upload(
    db: sqlite3.Connection,
    account_id: int,
    kept: Kept,
    name: str,
    now: datetime,
    *,
    per_hour: int,
    config: ArenaConfig,
) -> Version:
    """Record a kept upload and make it the account's next version, in one transaction:
    refused (429) when the account has uploaded `per_hour` times in the last hour; `late`
    when uploads are closed (`deadline.uploads_closed`: the deadline, a freeze, the pin)."""
    key = ratelimits.upload_key(account_id)
    with transaction(db):
        if ratelimits.count(db, key, now, HOUR) >= per_hour:
            raise too_many(per_hour)
        ratelimits.count_in(db, [key], now)
        late = uploads_closed(db, config, now) is not None
        upload_id = db.execute(
            "INSERT INTO uploads (sha256, size, name, account_id, received_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (kept.sha256, kept.size, name, account_id, stamp(now)),
        ).lastrowid
        (number,) = db.execute(
            "SELECT coalesce(max(number), 0) + 1 FROM versions WHERE account_id = ?",
            (account_id,),
        ).fetchone()
        row = db.execute(
            f"INSERT INTO versions (account_id, number, upload_id, created_at, late)"
            f" VALUES (?, ?, ?, ?, ?) RETURNING {Version.COLUMNS}",
            (account_id, number, upload_id, stamp(now), int(late)),
        ).fetchone()
    return Version.of(row)


def rate_limited(db: sqlite3.Connection, account_id: int, now: datetime, per_hour: int) -> bool:
    """Whether the account has no upload left this hour (asked before a body is read)."""
    return ratelimits.count(db, ratelimits.upload_key(account_id), now, HOUR) >= per_hour


Feed = Callable[["Incoming"], Awaitable[None]]


async def take_upload(
    store: ArenaStore,
    folder: Path,
    config: ArenaConfig,
    account_id: int,
    name: str | None,
    feed: Feed,
    now: datetime,
) -> Version:
    """Receive one upload of the account: `feed` writes its bytes into the `Incoming` file
    (refused past `[uploads] max_bytes`); kept, then recorded as the account's next version.
    `UploadRefused` says why not; a refused or broken upload leaves no file behind."""
    name = checked_name(name)
    settings = config.uploads
    if await store.read(rate_limited, account_id, now, settings.per_hour):
        raise too_many(settings.per_hour)  # before a byte is read
    incoming = await trio.to_thread.run_sync(Incoming, folder, settings.max_bytes)
    try:
        await feed(incoming)
        kept = await trio.to_thread.run_sync(incoming.keep)
    except BaseException:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(incoming.discard)
        raise
    return await store.write(
        record_upload,
        account_id,
        kept,
        name,
        now,
        per_hour=settings.per_hour,
        config=config,
    )
