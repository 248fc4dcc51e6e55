"""What a bot under `referee check` is shown of the folder it is checked in.

`check` runs the bot in the folder the student ran it in, and its command names its program
from there (`cd COURSE && referee check alak "python3 submissions/alice/main.py"`). Where that
folder is, or lies in, a folder the tool writes for many bots, nothing of that folder is the
checked bot's but its own folder: a course's folder (`course.toml`: the other submissions, the
work folder with every student's code, the grades, the feedback pages) or a tournament's (its
config: the other bots' folders, the config itself). So there the bot is shown only the way to
its own places (its program's folder and what its command names); every other entry of the
folders on that way is hidden. Such a folder found below the one it is checked in (another
tournament kept beside the bot) is hidden the same way: whole, unless the bot's own places lie
in it.

Elsewhere (a student's own folder) the bot sees what `play` shows (referee/tournament/
bot_folders.py: the folder it runs in less the other submissions beside its program's folder
and the referee's output).
"""

from __future__ import annotations

import os
import tomllib
from collections import deque
from pathlib import Path

from referee.course.scheme import COURSE_FILE
from referee.isolation.places import Places
from referee.tournament.bot_folders import SCAN_DEPTH, SCAN_ENTRIES

CONFIG_BYTES = 1 << 20  # a tournament config is far smaller; a larger .toml is no config of ours


def check_hidden(places: Places) -> list[Path]:
    """What of the folder a checked bot runs in (and below it) the bot must not see: see the
    module docstring. `places`: the bot's places, as the sandbox finds them."""
    keep = [places.program_folder, *places.named]
    if places.program_file is not None:
        keep.append(places.program_file)
    if _in_a_layout(places.folder):
        return _all_but_the_way(places.folder, keep)
    hidden: list[Path] = []
    for holder in _layouts_below(places.folder):
        hidden += _all_but_the_way(holder, keep)
    return list(dict.fromkeys(hidden))


def _in_a_layout(folder: Path) -> bool:
    """Whether `folder`, or a folder above it, is a course's or a tournament's."""
    return any(_is_layout(place) for place in (folder, *folder.parents))


def _is_layout(folder: Path) -> bool:
    """Whether `folder` holds a course file or a tournament config (a TOML file whose
    `[[players]]` are the bots: `tournament new`'s, `course collect`'s, `match`'s)."""
    if _is_file(folder / COURSE_FILE):
        return True
    return any(
        entry.name.endswith(".toml") and _is_config(Path(entry.path)) for entry in _files(folder)
    )


def _is_config(path: Path) -> bool:
    try:
        if path.stat().st_size > CONFIG_BYTES:
            return False
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(data.get("players"), list)


def _layouts_below(start: Path) -> list[Path]:
    """The course and tournament folders below `start`, nearest first, as deep and as far as
    the search for the referee's output goes (what is beyond it, that search hides whole)."""
    found: list[Path] = []
    budget = SCAN_ENTRIES
    queue = deque([(start, 0)])
    while queue and budget > 0:
        folder, depth = queue.popleft()
        for entry in _folders(folder):
            budget -= 1
            path = Path(entry.path)
            if _is_layout(path):
                found.append(path)
            elif depth + 1 < SCAN_DEPTH:
                queue.append((path, depth + 1))
    return found


def _all_but_the_way(folder: Path, keep: list[Path]) -> list[Path]:
    """Every entry of `folder`, and of each folder below it on the way to one of `keep`, that
    leads to none of them: `folder` whole when none lies in it. Links are left alone: the
    sandbox shows a link's target only where it is shown anyway."""
    if not any(path.is_relative_to(folder) for path in keep):
        return [folder]
    if folder in keep:
        return []
    hidden: list[Path] = []
    for entry in _entries(folder):
        hidden += _all_but_the_way(Path(entry.path), keep)
    return hidden


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The folders and files of `folder` (no link, no device, pipe or socket)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(
                (e for e in entries if e.is_dir(follow_symlinks=False) or _regular(e)),
                key=lambda entry: entry.name,
            )
    except OSError:
        return []


def _folders(folder: Path) -> list[os.DirEntry[str]]:
    return [e for e in _entries(folder) if e.is_dir(follow_symlinks=False)]


def _files(folder: Path) -> list[os.DirEntry[str]]:
    return [e for e in _entries(folder) if _regular(e)]


def _regular(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False
