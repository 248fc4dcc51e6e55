"""Which folders are whose: each bot of a run kept to its own files, and the referee's output
kept from every bot.

A bot's folder is where its program is: the folder of the first path its command names (a
script, a jar, a class path, an `env` assignment's folder), else the folder it runs in (`./bot`,
`java -cp . Main`, `python3 -m bot`). A tournament or a match refuses a layout where one bot's
folder lies inside another's: the outer bot would run among the inner one's files, and a shipped
copy of its folder (docs/cluster.md) would carry them. Two bots may share a folder (programs
side by side, or one program with other options): the sandbox hides, from each, the files and
folders the other's command names.

`contain_run` is what every run adds to its isolation, once, before its first game: every other
player's places hidden from each bot (in a tournament, not only its opponent's), and the
referee's own output wherever a bot would see it (`referee_output`).
"""

from __future__ import annotations

import json
import os
import shlex
from collections import deque
from collections.abc import Iterable, Sequence
from pathlib import Path

from referee.isolation import Feature, Isolation, player_directories, player_places
from referee.isolation.interpreters import without_env
from referee.players import PlayerSpec, is_builtin, player_cwd

# What the referee writes, by the names the commands give it (a test holds these to the
# modules that own them): a tournament's or a match's store (tournament/store.py), a league's
# index (league/config.py), and the default folders of `play` and `check` (records), `match`
# and `demo` (their tournaments).
STORE_FILES = ("tournament.sqlite", "tournament.lock", "league.sqlite")
OUTPUT_FOLDERS = ("referee-games", "referee-matches", "referee-demo")
RECORD_SUFFIX = ".jsonl"
# How far below a bot's folders the referee's output is looked for, and how much is looked at
# (nearest first): a run started in a large folder (a home) must not take long to start.
SCAN_DEPTH = 4
SCAN_ENTRIES = 10_000
HEADER_BYTES = 1 << 16  # a record's first line, its header, is well within this


def program_folder(player: PlayerSpec) -> Path | None:
    """The folder of the bot's program (see the module docstring); None for a built-in bot,
    which needs nothing of any folder."""
    if is_builtin(player.command):
        return None
    workdir = (player_cwd(player) or Path.cwd()).absolute()
    try:
        argv, _ = without_env(shlex.split(player.command))
    except ValueError:
        return workdir.resolve()
    if argv and "/" in argv[0] and not os.path.isabs(argv[0]):
        return (workdir / argv[0]).resolve().parent  # `./bot`, `bin/bot`: where it is
    named = player_directories(player.command, workdir)[1:]  # [0] is the working directory
    return named[0] if named else workdir.resolve()


def layout_refusal(players: Sequence[PlayerSpec]) -> str | None:
    """Why these players cannot play together as laid out (one's folder inside another's), in
    words that name both and the fix; None when every bot has a folder of its own."""
    folders = [(p, folder) for p in players if (folder := program_folder(p)) is not None]
    for outer, around in folders:
        for inner, within in folders:
            if within != around and within.is_relative_to(around):
                return (
                    f"{inner.name}'s folder {within} is inside {outer.name}'s folder {around}: "
                    f"{outer.name} would run among {inner.name}'s files. Give each bot a folder "
                    f"of its own, side by side (move {within} out of {around}, or "
                    f"{outer.name}'s program into a folder of its own)"
                )
    return None


def contain_run(isolation: Isolation, players: Sequence[PlayerSpec]) -> Isolation:
    """`isolation` hiding, from every bot of the run, each other player's places and the
    referee's output in the folders the bots are shown (only the sandbox hides anything)."""
    if not isolation.has(Feature.SANDBOX):
        return isolation
    own = [p for p in players if not is_builtin(p.command)]
    places = [place for p in own for place in player_places(p.command, player_cwd(p))]
    roots = [root for p in own for root in player_directories(p.command, player_cwd(p))]
    # A bot never loses its own places: the sandbox binds them over anything hidden.
    return isolation.hiding(*places, *referee_output(roots))


def referee_output(roots: Iterable[Path]) -> list[Path]:
    """The referee's output found in or below `roots` (the folders bots are shown), nearest
    first: each store, each default output folder and each folder holding a game record, as a
    whole; in a root itself (a bot's own folder, which must stay visible to it) the files alone.
    Hidden folders (`.git`, `.venv`) and links are not looked into."""
    found: list[Path] = []
    budget = SCAN_ENTRIES
    queue = deque((root, 0) for root in dict.fromkeys(r.resolve() for r in roots))
    while queue and budget > 0:
        folder, depth = queue.popleft()
        entries = _entries(folder)
        budget -= len(entries)
        outputs = [Path(e.path) for e in entries if _is_file(e) and _is_output(e)]
        if outputs and depth > 0:
            found.append(folder)
            continue
        found += outputs
        for entry in entries:
            if entry.name.startswith(".") or not _is_folder(entry):
                continue
            if entry.name in OUTPUT_FOLDERS:
                found.append(Path(entry.path))
            elif depth < SCAN_DEPTH:
                queue.append((Path(entry.path), depth + 1))
    return list(dict.fromkeys(found))


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    if folder == Path("/"):
        return []  # the whole machine is no bot's folder: the sandbox shows it none of it
    try:
        with os.scandir(folder) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return []


def _is_output(entry: os.DirEntry[str]) -> bool:
    if entry.name.startswith(STORE_FILES):  # with SQLite's -wal and -shm, a store being made
        return True
    return entry.name.endswith(RECORD_SUFFIX) and _is_record(Path(entry.path))


def _is_record(path: Path) -> bool:
    """Whether the file starts with a game record's header (read, not trusted: any file)."""
    try:
        with path.open("rb") as file:
            first = file.readline(HEADER_BYTES)
        header = json.loads(first)
    except (OSError, ValueError):
        return False
    return isinstance(header, dict) and header.get("type") == "header" and "game" in header


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False
