"""Whose places are whose: what of each player of a run another bot must not see.

A player's places are found from its command (`confinement.player_places`): the folder it runs
in, its program (the first path the command names: a script, a jar, a class path, `./bot`) with
the folder that holds it, and whatever else the command names (a data file, a library folder).
The first three make the player: no other bot sees them, whatever its own command names (a
sibling's folder, `../alice`, or a file in it); two players see them only where they are the
same (one program with other options, `referee play` run where both are). The rest is hidden
from every other bot unless that bot names it too (one book shared by two players), or it lies
in that bot's own folder, or in what every bot reads anyway.

What every bot reads anyway is never hidden because a player named it: the folders of its
interpreter (found on the PATH or given by its absolute path: a player naming
`/usr/lib/python3.11/os.py` does not take Python away from its opponent), the referee's Python,
and the machine's system folders (/usr, /etc, ...), where only what lies in a player's own
folder is that player's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.isolation.sandbox import SYSTEM


@dataclass(frozen=True)
class Places:
    """One player's places, every path absolute with its links resolved."""

    folder: Path  # the folder it runs in
    program_folder: Path  # its program's folder (the folder it runs in, if it names none)
    program_file: Path | None = None  # its program, where the command names a file
    named: tuple[Path, ...] = ()  # every other folder and file its command names

    @property
    def own(self) -> tuple[Path, ...]:
        """What makes it this player: its folder, its program's folder and its program."""
        file = () if self.program_file is None else (self.program_file,)
        return (self.folder, self.program_folder, *file)


def hidden_from(own: Places, players: Iterable[Places], reads: Sequence[Path]) -> list[Path]:
    """What of `players` (every player of the run; `own` among them or not) the bot whose
    places are `own` must not see. `reads`: the folders it reads whatever anyone names (its
    interpreter's, the referee's Python)."""
    mine = set(own.own)
    shown = [own.folder, own.program_folder, *reads]
    hidden: list[Path] = []
    for player in players:
        for path in player.own:
            # A player's own places stay its own even where they lie in what this bot reads
            # anyway (a player run in the cache folder that holds the launcher): the sandbox
            # shows the bot what it needs there again, never the rest.
            if path not in mine and not _anyone_s(path, player, ()):
                hidden.append(path)
        for path in player.named:
            if path in mine or path in own.named or _anyone_s(path, player, shown):
                continue
            hidden.append(path)
    return list(dict.fromkeys(hidden))


def run_hidden(own: Places, hidden: Iterable[Path], yielding: Sequence[Path]) -> list[Path]:
    """What of the places the run hides from every bot is hidden from the bot whose places are
    `own`: all of them but a folder of `yielding` (a record's folder, whose record is hidden by
    its own path) on its way from the folder it runs in to its program's folder, that folder
    included: hidden whole, it would take the bot's program away (`--record mine/n.jsonl`). The
    folder it runs in is always shown anyway; what else the run hides (a tournament's folder,
    its store) stays hidden even where a command makes it the bot's program's folder."""
    start, end = own.folder, own.program_folder
    return [
        path
        for path in hidden
        if path not in yielding
        or path == start
        or not (_within(path, start) and _within(end, path))
    ]


def _anyone_s(path: Path, player: Places, reads: Sequence[Path]) -> bool:
    """Whether `path`, which `player`'s command names, is what a bot reads anyway."""
    if any(_within(path, folder) for folder in reads):
        return True
    return len(path.parts) > 1 and path.parts[1] in SYSTEM and not _within(path, player.folder)


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
