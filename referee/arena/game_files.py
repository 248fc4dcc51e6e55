"""A ladder game's record file, read for the pages: found from its row (inside DIR/games only),
replayed through the rules into frames (referee/replay.py), and kept in a small cache.

A finished game's record never changes, and a running game's grows: the cache is keyed by the
file's size and modification time, so a page never shows a stale replay and a record is
replayed once however many people look at it. A record that is missing, unreadable or not a
record is `None` with the reason logged: the page says the record cannot be shown.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from pathlib import Path

from referee.records import RecordError
from referee.replay import Replay, load_replay
from referee.web.archive import MAX_RECORD_BYTES

log = logging.getLogger("referee.arena")

CACHED_REPLAYS = 256
_cache: OrderedDict[tuple[Path, int, int], Replay] = OrderedDict()
_lock = threading.Lock()


def record_file(root: Path, relative: str | None) -> Path | None:
    """The record a game's row names (relative to the arena's folder `root`), if it is a file
    inside DIR/games; None otherwise (not played yet, or a path that leads elsewhere)."""
    if not relative:
        return None
    games = (root / "games").resolve()
    try:
        path = (root / relative).resolve()
        if path.is_relative_to(games) and path.is_file():
            return path
    except (OSError, ValueError):  # a name too long, a NUL byte
        pass
    return None


def replay_of(path: Path) -> Replay | None:
    """The replay of the record at `path` (from the cache when the file has not changed);
    None if it cannot be read as a record. Blocking: call it in a worker thread."""
    try:
        stat = path.stat()
    except OSError as exc:
        log.warning("game record %s: %s", path, exc)
        return None
    if stat.st_size > MAX_RECORD_BYTES:
        log.warning("game record %s: too large to show (%d bytes)", path, stat.st_size)
        return None
    key = (path, stat.st_size, stat.st_mtime_ns)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    try:
        replay = load_replay(path)
    except (OSError, RecordError) as exc:
        log.warning("game record %s: %s", path, exc)
        return None
    with _lock:
        _cache[key] = replay
        while len(_cache) > CACHED_REPLAYS:
            _cache.popitem(last=False)
    return replay
