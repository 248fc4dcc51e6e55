"""`referee games`: list the games and their aliases."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from protocols import aliases, game_names
from referee.commands import EXIT_OK

if TYPE_CHECKING:
    from rich.console import Console


def register(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(run=run_games)


def run_games(args: argparse.Namespace, out: Console, err: Console) -> int:
    for name in game_names():
        others = aliases(name)
        also = f" (also: {', '.join(others)})" if others else ""
        out.out(f"{name}{also}", highlight=False)
    return EXIT_OK
