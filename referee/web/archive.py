"""The record files under the served folders: listing them, and turning a request's id into a path.

A record's id is `<folder number>/<path inside that folder>`. Every id from a request goes through
`resolve_record`, which refuses anything that is not a `.jsonl` file inside its served folder after
symbolic links are followed, so no request can read outside the folders given on the command line.
An id that is not even of that form is `MalformedId` (the server answers 400, not 404).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocols.base import Reason, Side
from referee.records import ResultLabel, result_label

RECORD_SUFFIX = ".jsonl"
MAX_LISTED = 5000  # records listed per served folder (newest first)
MAX_RECORD_BYTES = 64 * 1024 * 1024
_TAIL_BYTES = 64 * 1024  # enough for any result line with its stderr tails
_MAX_DIGITS = 18  # longer numbers are refused before int() is asked (it raises past 4300)


class RefusedPath(ValueError):
    """An id that does not name a record inside a served folder; the message says why."""


class MalformedId(RefusedPath):
    """An id that is not `<folder number>/<plain relative path>` at all."""


def small_number(text: str, largest: int) -> int | None:
    """`text` as a number 0..largest, or None: plain ASCII digits only. int() alone would take
    other scripts' digits ("٣"), signs, spaces and underscores, and raise on huge numbers."""
    if not (0 < len(text) <= _MAX_DIGITS and text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= largest else None


@dataclass
class Archive:
    """The served folders, and a cache of record summaries keyed by size and modification time."""

    roots: list[Path]
    _cache: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = field(default_factory=dict)

    @classmethod
    def of(cls, folders: list[Path]) -> Archive:
        return cls([folder.resolve() for folder in folders])

    def resolve_record(self, record_id: str) -> Path:
        """The record file an id names; raises `RefusedPath` for anything else."""
        number_text, sep, rel = record_id.partition("/")
        number = small_number(number_text, 10**_MAX_DIGITS)
        if not sep or number is None:
            raise MalformedId("a record id is <folder number>/<path>")
        parts = rel.split("/")
        if any(p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts):
            raise MalformedId("not a plain relative path")
        if number >= len(self.roots):
            raise RefusedPath("unknown folder")
        try:
            return self._existing_record(self.roots[number], rel)
        except OSError:  # a name too long for the file system, a folder we may not read
            raise RefusedPath("no such record") from None

    def _existing_record(self, root: Path, rel: str) -> Path:
        path = (root / rel).resolve()
        if not path.is_relative_to(root):
            raise RefusedPath("outside the served folder")
        if path.suffix != RECORD_SUFFIX or not path.is_file():
            raise RefusedPath("no such record")
        if path.stat().st_size > MAX_RECORD_BYTES:
            raise RefusedPath("record too large to serve")
        return path

    def record_id(self, number: int, path: Path) -> str:
        return f"{number}/{path.relative_to(self.roots[number]).as_posix()}"

    def id_of(self, path: Path | None) -> str | None:
        """The id of the record at `path`, if a served folder holds it; None otherwise."""
        if path is None:
            return None
        resolved = path.resolve()
        for number, root in enumerate(self.roots):
            if resolved.is_relative_to(root):
                return self.record_id(number, resolved)
        return None

    def list_records(self) -> list[dict[str, Any]]:
        """Summaries of the records in every served folder, newest first."""
        found: list[tuple[float, dict[str, Any]]] = []
        for number, root in enumerate(self.roots):
            for path, stat in _newest_records(root):
                summary = self._summary(path, stat)
                if summary is not None:
                    found.append((stat.st_mtime, {"id": self.record_id(number, path), **summary}))
        found.sort(key=lambda item: item[0], reverse=True)
        return [summary for _, summary in found]

    def _summary(self, path: Path, stat: os.stat_result) -> dict[str, Any] | None:
        key = (stat.st_size, stat.st_mtime_ns)
        cached = self._cache.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        summary = summarise_record(path)
        if summary is not None:
            self._cache[path] = (key, summary)
        return summary


def _newest_records(root: Path) -> list[tuple[Path, os.stat_result]]:
    records = []
    for path in _walk(root):
        try:
            stat = path.stat()
        except OSError:
            continue
        records.append((path, stat))
    records.sort(key=lambda item: item[1].st_mtime, reverse=True)
    return records[:MAX_LISTED]


def _walk(root: Path) -> Iterator[Path]:
    """Record files under `root`, skipping hidden folders and links that lead outside it."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            path = Path(folder, name)
            if name.endswith(RECORD_SUFFIX) and path.resolve().is_relative_to(root):
                yield path


def summarise_record(path: Path) -> dict[str, Any] | None:
    """Game, players and result of a record from its first and last lines; None if not a record."""
    try:
        with path.open("rb") as file:
            header = json.loads(file.readline())
            size = file.seek(0, os.SEEK_END)
            file.seek(max(0, size - _TAIL_BYTES))
            last = json.loads(file.read().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        return None
    if not isinstance(header, dict) or header.get("type") != "header":
        return None
    last = last if isinstance(last, dict) else {}
    players = header.get("players")
    players = players if isinstance(players, dict) else {}
    result = last if last.get("type") == "result" else None
    return {
        "game": header.get("game"),
        "players": {s: p.get("name") for s, p in players.items() if isinstance(p, dict)},
        "started_at": header.get("started_at"),
        "finished": result is not None,
        "result": _label(result) if result else None,
        "winner": result.get("winner") if result else None,
        "reason": result.get("reason") if result else None,
        "ending": result.get("ending") if result else None,
        "plies": result.get("plies") if result else last.get("ply", 0),
    }


def _label(result: dict[str, Any]) -> ResultLabel | None:
    """A result line's one word (a double forfeit is no draw); None for one that does not read
    (a record is only listed here, not judged)."""
    winner, reason = result.get("winner"), result.get("reason")
    try:
        return result_label(Side(winner) if winner else None, Reason(str(reason)))
    except ValueError:  # not a colour, or not a reason
        return None
