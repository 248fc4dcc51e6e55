"""A version's one content hash: the tournaments' `bot_content_hash` of its command and its
folder (DIR/versions/ID), the hash a game's record keeps for a player. It is computed once,
when the version is built, and kept with the version: its page, every ladder game's record,
the finalists table and the final's records (which the tournament hashes the same way) show
the same hash, so a finalist is matched to the version that played the ladder.

Stores from before this kept the hash of the folder alone (`folder_hash`). `rehash_versions`
(run as the server starts) replaces each such hash, once, with the version's content hash,
provided its folder still holds what was hashed; a state flag says it was done. A ladder
record written before keeps the folder's hash it was written with: records are never
rewritten.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from referee import __version__
from referee.arena.store import get_state, transaction
from referee.bot_content import bot_content_hash, folder_hash

REHASHED = "versions_rehashed"  # state: the versions' hashes are content hashes


def version_hash(command: str, folder: Path) -> str:
    """The content hash of a version run as `command` in its own `folder`. Blocking."""
    return bot_content_hash(command, folder, folder, __version__)


def to_rehash(db: sqlite3.Connection) -> list[tuple[int, str, str]]:
    """(id, command, stored hash) of the versions whose hash may be a folder's, or none once
    the store was rehashed."""
    if get_state(db, REHASHED) is not None:
        return []
    rows = db.execute(
        "SELECT id, command, content_hash FROM versions"
        " WHERE command IS NOT NULL AND content_hash IS NOT NULL AND content_hash != ''"
        " ORDER BY id"
    )
    return [(int(a), str(b), str(c)) for a, b, c in rows]


def new_hashes(found: list[tuple[int, str, str]], folder_of: dict[int, Path]) -> dict[int, str]:
    """Each version's content hash, for those whose folder still gives the stored folder hash
    (a folder changed or gone since is left as it was). Blocking: it reads the folders."""
    done = {}
    for version, command, stored in found:
        folder = folder_of[version]
        if folder.is_dir() and folder_hash(folder) == stored:
            done[version] = version_hash(command, folder)
    return done


def store_hashes(db: sqlite3.Connection, hashes: dict[int, str]) -> int:
    """Keep the new hashes and mark the store rehashed; how many changed."""
    with transaction(db):
        if get_state(db, REHASHED) is not None:
            return 0
        db.executemany(
            "UPDATE versions SET content_hash = ? WHERE id = ?",
            [(digest, version) for version, digest in hashes.items()],
        )
        db.execute("INSERT INTO state (key, value) VALUES (?, '1')", (REHASHED,))
    return len(hashes)
