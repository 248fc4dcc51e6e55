"""`referee games`: list the installed games, their aliases and where each comes from.

The list is read from the built-in games' folders and the installed packages' metadata alone (no
rules are imported), so a game whose module is broken is still listed; playing it names the
fault.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from protocols import GameEntry, entries
from referee.commands import EXIT_OK

if TYPE_CHECKING:
    from rich.console import Console


def register(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(run=run_games)


def describe(entry: GameEntry) -> str:
    """One line: the name, its other spellings, and the distribution a plug-in comes from."""
    also = f" (also: {', '.join(entry.aliases)})" if entry.aliases else ""
    source = "" if entry.builtin else f" [plug-in from {entry.distribution} {entry.version}]"
    return f"{entry.name}{also}{source}"


def run_games(args: argparse.Namespace, out: Console, err: Console) -> int:
    for entry in entries():
        out.out(describe(entry), highlight=False)
    return EXIT_OK
