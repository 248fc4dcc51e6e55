"""What a bot under `referee check` is shown of the folder it is checked in.

`check` runs the bot in the folder the student ran it in, and its command names its program
from there (`cd COURSE && referee check alak "python3 submissions/alice/main.py"`). Where that
folder is, or lies in, a folder the tool writes for many bots (a course's: `course.toml`; a
tournament's: a config with `[[players]]`), the folders that hold other bots' files show the
bot only the way to its own places (its program's folder and what its command names), nothing
else of them. Such a container is a course's or a tournament's folder itself, the course's
submissions and work folders, and, below a container on the way, a folder that holds another
bot's submission (`bots/` beside `bots/alice`, with what else lies loose there); a folder
inside a course's submissions or work folder is a student's, whatever it holds. The folder
the bot runs in, when it is no container (a student's own folder, as `referee course check`
runs it), is all shown, as under `play`. A course's or tournament's folder found below the
folder it is checked in (another tournament kept beside the bot) is hidden whole, or, if the
bot's places lie in it, shown only on the way to them.

Elsewhere (a student's own folder) the bot sees what `play` shows (referee/tournament/
bot_folders.py: the folder it runs in less the other submissions beside its program's folder
and the referee's output).
"""

from __future__ import annotations

import os
import tomllib
from collections import deque
from collections.abc import Sequence
from pathlib import Path

from referee.course.scheme import COURSE_FILE, Course, CourseError
from referee.isolation.places import Places
from referee.tournament.bot_folders import SCAN_DEPTH, SCAN_ENTRIES
from referee.tournament.layouts import is_submission

CONFIG_BYTES = 1 << 20  # a tournament config is far smaller; a larger .toml is no config of ours


def check_hidden(places: Places) -> list[Path]:
    """What of the folder a checked bot runs in (and below it) the bot must not see: see the
    module docstring. `places`: the bot's places, as the sandbox finds them."""
    keep = [places.program_folder, *places.named]
    if places.program_file is not None:
        keep.append(places.program_file)
    start = places.folder
    if _in_a_layout(start):
        return _hidden_in(start, keep, _course_folders(start), inside=False)
    hidden: list[Path] = []
    for holder in _layouts_below(start):
        if _leads(holder, keep):
            hidden += _hidden_in(holder, keep, (), inside=True)
        else:
            hidden.append(holder)
    return list(dict.fromkeys(hidden))


def _hidden_in(folder: Path, keep: list[Path], course: Sequence[Path], inside: bool) -> list[Path]:
    """What of `folder` (shown to the bot) is hidden from it: nothing if it is one of the bot's
    own places or no container (see the module docstring; `inside`: below a container), else
    every entry that leads to none of `keep`, and what is hidden in the entries that do."""
    if folder in keep:
        return []
    entries = [Path(entry.path) for entry in _entries(folder)]
    way = [path for path in entries if _leads(path, keep)]
    aside = [path for path in entries if path not in way]
    # A student's folder in a course is the student's, whatever config it holds of its own.
    students = any(folder != place and folder.is_relative_to(place) for place in course)
    container = (
        (_is_layout(folder) and not students)
        or folder in course
        or (inside and any(is_submission(path) for path in aside))
    )
    if not container:
        return []
    hidden = aside
    for path in way:
        hidden += _hidden_in(path, keep, course, inside=True)
    return hidden


def _leads(path: Path, keep: list[Path]) -> bool:
    """Whether `path` is, or holds, one of `keep`."""
    return any(place.is_relative_to(path) for place in keep)


def _course_folders(start: Path) -> list[Path]:
    """The submissions and work folders of the course at or above `start`, if any."""
    for folder in (start, *start.parents):
        if _is_file(folder / COURSE_FILE):
            try:
                course = Course(folder / COURSE_FILE)
            except CourseError:
                return []
            return [course.submissions.resolve(), course.work.resolve()]
    return []


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
