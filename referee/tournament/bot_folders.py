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
from dataclasses import dataclass
from pathlib import Path

from referee.isolation import (
    Feature,
    Isolation,
    IsolationUnavailable,
    player_directories,
    player_places,
)
from referee.isolation.confinement import public_directories
from referee.isolation.interpreters import without_env
from referee.isolation.levels import BUBBLEWRAP
from referee.isolation.places import Places
from referee.isolation.sandbox import SYSTEM, views_own
from referee.players import PlayerSpec, is_builtin, player_cwd
from referee.printable import is_unsafe, printable
from referee.tournament.layouts import is_submission

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
# How many files of the referee's output the sandbox hides from a bot one by one (each by a
# mount of its own, where their folder is one the bot is shown): the compiled helper starts a
# bot about 90 ms later with 10,000; bubblewrap reads the whole mount table again for each
# mount (1,000 files: 1 s more per bot start, 2,000: 4.5 s) and takes 9,000 words at most
# (docs/performance.md, "A game's fixed cost").
HIDDEN_FILES_MAX = 10_000
HIDDEN_FILES_MAX_BUBBLEWRAP = 1_000


class CrowdedFolder(IsolationUnavailable):
    """More of the referee's output in the bots' own folders than the sandbox can hide one by
    one: said before any game, with the folder, the count and the fix."""


def program_folder(player: PlayerSpec) -> Path | None:
    """The folder of the bot's program (see the module docstring); None for a built-in bot,
    which needs nothing of any folder."""
    if is_builtin(player.command):
        return None
    return player_places(player.command, player_cwd(player)).program_folder


def layout_refusal(players: Sequence[PlayerSpec]) -> str | None:
    """Why these players cannot play together as laid out (one's folder inside another's, or
    one's command naming what lies in another's folder), in words that name both and the fix;
    None when every bot has a folder of its own and names nothing of another's."""
    own = [p for p in players if not is_builtin(p.command)]
    places = [(p, player_places(p.command, player_cwd(p))) for p in own]
    for outer, around in places:
        for inner, within in places:
            if inner is outer:
                continue
            if refusal := _nested(inner, within, outer, around) or _naming(
                inner, within, outer, around
            ):
                return refusal
    return None


def _nested(inner: PlayerSpec, within: Places, outer: PlayerSpec, around: Places) -> str | None:
    """Whether `inner`'s folder lies inside `outer`'s: `outer` would run among its files."""
    folder, holder = within.program_folder, around.program_folder
    if folder == holder or not folder.is_relative_to(holder):
        return None
    return (
        f"{inner.name}'s folder {folder} is inside {outer.name}'s folder {holder}: "
        f"{outer.name} would run among {inner.name}'s files. Give each bot a folder "
        f"of its own, side by side (move {folder} out of {holder}, or "
        f"{outer.name}'s program into a folder of its own)"
    )


def _naming(namer: PlayerSpec, places: Places, owner: PlayerSpec, owned: Places) -> str | None:
    """Whether `namer` names what lies in `owner`'s folder (`../alice`, a file in it), which
    is no part of its own (a shared folder, or one inside the other, is not this)."""
    folder = owned.program_folder
    if places.program_folder.is_relative_to(folder):
        return None  # the same folder, or `_nested`'s case
    # Where it runs is not this: two bots may share a folder, each hidden from the other.
    for path in (*places.own[2:], *places.named):
        if path.is_relative_to(folder):
            return (
                f"{namer.name}'s command names {path}, in {owner.name}'s folder {folder}: "
                f"no bot sees another's files. Name only what lies in {namer.name}'s own "
                f"folder ({places.program_folder}), and run it there"
            )
    return None


def outside_words(
    command: str, cwd: Path, *, installed: bool = False, reads: Sequence[Path] | None = None
) -> list[str]:
    """The words of a bot's command that name a path outside its folder `cwd`: one that leaves
    it (`../alice`, `/srv/course/grades.csv`), or a link in it that leads out. What a command
    may name besides its own files: what every bot may read anyway (the system's folders, /usr,
    /etc and the like, by their absolute paths; its own /dev, /proc and /sys; the referee's
    Python) and, as the program it starts, one found on the PATH or given by its absolute path
    in those folders or in a folder of the PATH (`python3`, `/usr/bin/java`). `installed`: an
    interpreter installed anywhere may start it too (an executable file in a `bin` folder, such
    as a virtualenv's `/home/me/venv/bin/python`), for a command its config's author chose.
    `reads`: `public_directories()`, for a caller checking many commands to find once."""
    try:
        argv, assigned = without_env(shlex.split(command))
    except ValueError:
        return []  # it names nothing: its games say why it does not start
    if not argv:
        return []
    folder = Path(os.path.normpath(cwd.absolute()))
    reads = public_directories() if reads is None else reads
    program = argv[0]
    if installed and os.path.isabs(program) and _installed(Path(os.path.normpath(program))):
        words = []
    else:
        words = [program] if _outside_program(program, folder, reads) else []
    for word in [*argv[1:], *assigned.values()]:
        parts = word.split(os.pathsep)
        if any(_leaves(part, folder, reads) for part in parts if part not in ("", ".", "/")):
            words.append(word)
    return list(dict.fromkeys(words))


def _installed(program: Path) -> bool:
    """Whether `program` is an executable file in a `bin` folder: an interpreter installed."""
    return program.parent.name == "bin" and program.is_file() and os.access(program, os.X_OK)


def _outside_program(program: str, folder: Path, reads: Sequence[Path]) -> bool:
    if "/" not in program:
        return False  # found on the PATH
    if not os.path.isabs(program):
        return _leaves(program, folder, reads)
    found = Path(os.path.normpath(program))
    path = [Path(p) for p in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]
    return found.parent not in path and not _everyone_s(found, reads)


def _leaves(part: str, folder: Path, reads: Sequence[Path]) -> bool:
    """Whether the path `part` (relative to `folder`) lies outside it: as written, or where a
    link in it leads (what the sandbox would show). An absolute path may name what every bot
    reads anyway; a relative one must stay in the folder."""
    written = Path(os.path.normpath(folder / part))
    if not written.is_relative_to(folder) and (
        not os.path.isabs(part) or not _everyone_s(written, reads)
    ):
        return True
    try:
        real = (folder / part).resolve()
    except (OSError, RuntimeError, ValueError):
        return False
    if not os.path.lexists(folder / part):
        return False  # names nothing (yet): as written is all there is
    return not real.is_relative_to(folder.resolve()) and not _everyone_s(real, reads)


def _everyone_s(path: Path, reads: Sequence[Path]) -> bool:
    """Whether every sandboxed bot reads `path` anyway: the system's folders, the view's own
    /dev, /proc and /sys, the referee's Python."""
    if (len(path.parts) > 1 and path.parts[1] in SYSTEM) or views_own(path):
        return True
    return any(path.is_relative_to(folder) for folder in reads)


def command_problem(command: str, folder: Path) -> str | None:
    """Why a command found in a submission (a run.txt, a manifest's `run`) cannot be used: it
    holds control characters (a terminal would obey them, a config could not hold them), or it
    names a path outside the bot's folder (`../alice`: another student's, the tournament's),
    which a command from a submission may not; None if it can."""
    if any(is_unsafe(char) for char in command):
        return (
            f"its command holds control characters (`{printable(command)}`): write it as "
            "plain text on one line"
        )
    if words := outside_words(command, folder):
        named = ", ".join(f"`{printable(word)}`" for word in words)
        return (
            f"its command names {named}, outside its own folder: a submitted command may name "
            "only the bot's own files (and its interpreter, such as python3 or java)"
        )
    return None


def contain_run(
    isolation: Isolation, players: Sequence[PlayerSpec], *, refuse_crowded: bool = True
) -> Isolation:
    """`isolation` keeping every bot of the run from each other player's places, and hiding
    from all of them the referee's output in the folders the bots are shown and the folders
    beside a bot's program's folder (only the sandbox hides anything). Raises `CrowdedFolder`
    where more files must be hidden one by one than the sandbox can (`refuse_crowded`; a
    check's bot, alone in its folder, is told by its games instead)."""
    if not isolation.has(Feature.SANDBOX):
        return isolation
    own = [p for p in players if not is_builtin(p.command)]
    places = [player_places(p.command, player_cwd(p)) for p in own]
    roots = [root for p in own for root in player_directories(p.command, player_cwd(p))]
    search = referee_output(roots)
    if refuse_crowded and (crowded := crowd_refusal(isolation, search.found)):
        raise CrowdedFolder(crowded)
    contained = isolation.among(*places).hiding(*search.found, *search.unsearched)
    contained = contained.hiding(*beside_programs(places))
    if search.unsearched:
        contained = contained.noting(_unsearched_note(search.unsearched, roots))
    return contained


def crowd_refusal(isolation: Isolation, found: Sequence[Path]) -> str | None:
    """Why the sandbox cannot hide the files of `found` (what `referee_output` found: files in
    the folders the bots are shown, folders elsewhere) one by one, naming the folder that holds
    the most of them, their count and the fix; None when it can."""
    bubblewrap = isolation.sandbox_program == BUBBLEWRAP
    most = HIDDEN_FILES_MAX_BUBBLEWRAP if bubblewrap else HIDDEN_FILES_MAX
    files = [path for path in found if not path.is_dir()]
    if len(files) <= most:
        return None
    counts: dict[Path, int] = {}
    for path in files:
        counts[path.parent] = counts.get(path.parent, 0) + 1
    folder, count = max(counts.items(), key=lambda item: item[1])
    program = "bubblewrap" if bubblewrap else "the sandbox"
    in_all = f" ({len(files):,} in the bots' folders)" if count < len(files) else ""
    return (
        f"{folder} holds {count:,} game records of the referee{in_all}, and the bots run in it "
        f"or below it: {program} hides at most {most:,} such files from a bot, each by itself, "
        "so no game was played. Move the records into a folder of their own that no bot runs "
        f"in (mkdir {folder}/games && mv {folder}/*.jsonl {folder}/games/), and write the next "
        "ones there (referee play --record games/NAME.jsonl)"
    )


def beside_programs(places: Sequence[Places]) -> list[Path]:
    """The other bots' submissions beside a bot's program's folder when that folder is below
    the one the bot runs in (`python3 submissions/alice/main.py` run from a course's folder, or
    `python3 alice/main.py` from its submissions: every other student's folder and archive),
    which no bot of the run is shown. A submission is what `layouts.is_submission` takes for
    one (an archive, a folder a bot could be run from), so that a bot's own folders beside its
    program's (`data` beside `src`) stay; never what leads to a player's places."""
    wanted = [path for p in places for path in (*p.own, *p.named)]
    hidden: list[Path] = []
    for p in places:
        holder = p.program_folder.parent
        if p.program_folder == p.folder or not holder.is_relative_to(p.folder):
            continue
        for entry in _entries(holder):
            path = Path(entry.path)
            if any(w.is_relative_to(path) for w in wanted) or entry.is_symlink():
                continue
            if is_submission(path):
                hidden.append(path)
    return list(dict.fromkeys(hidden))


@dataclass(frozen=True)
class Search:
    """The referee's output found below the folders bots are shown, and the folders not looked
    into because the search's budget was spent (hidden as a whole: nothing unsearched shows)."""

    found: list[Path]
    unsearched: list[Path]


def referee_output(roots: Iterable[Path]) -> Search:
    """The referee's output found in or below `roots` (the folders bots are shown), nearest
    first: each store, each default output folder and each folder holding a game record, as a
    whole; in a root itself (a bot's own folder, which must stay visible to it) and in a folder on
    the way to one, the files alone.
    Hidden folders (`.git`, `.venv`) and links are not looked into.

    The roots, and the folders on the way to one, are always looked into; any other folder is
    looked into while fewer than `SCAN_ENTRIES` entries have been seen, and is `unsearched`
    after that."""
    found: list[Path] = []
    unsearched: list[Path] = []
    budget = SCAN_ENTRIES
    starts = list(dict.fromkeys(r.resolve() for r in roots))
    queue = deque((root, 0) for root in starts)
    while queue:
        folder, depth = queue.popleft()
        if depth > 0 and folder in starts:
            continue  # a root below another: looked into as a root
        on_the_way = any(r.is_relative_to(folder) for r in starts)
        if depth > 0 and budget <= 0 and not on_the_way:
            unsearched.append(folder)
            continue
        entries = _entries(folder)
        budget -= len(entries)
        outputs = [Path(e.path) for e in entries if _is_file(e) and _is_output(e)]
        # A folder on the way to a root cannot be hidden whole: the bot's own would go with it.
        if outputs and depth > 0 and not on_the_way:
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
    return Search(list(dict.fromkeys(found)), unsearched)


def _unsearched_note(unsearched: Sequence[Path], roots: Sequence[Path]) -> str:
    """What a run says when its search for the referee's output stopped early."""
    where = [r for r in dict.fromkeys(roots) if any(u.is_relative_to(r) for u in unsearched)]
    shown = ", ".join(str(r) for r in where[:3]) + (", ..." if len(where) > 3 else "")
    return (
        f"{shown} holds more than {SCAN_ENTRIES:,} files and folders to look through for the "
        f"referee's own records and stores: the {len(unsearched):,} folders not looked into "
        f"(such as {unsearched[0]}) are hidden from every bot. Run from a folder that holds "
        "only the bots' folders to show a bot all of its folder"
    )


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
