"""`referee games`: list the games and their aliases."""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console

from protocols import game_names, get_game
from referee.commands import EXIT_OK


def register(commands: Any) -> None:
    parser = commands.add_parser("games", help="list the games")
    parser.set_defaults(run=run_games)


def run_games(args: argparse.Namespace, out: Console, err: Console) -> int:
    for name in game_names():
        game = get_game(name)
        aliases = f" (also: {', '.join(game.aliases)})" if game.aliases else ""
        out.out(f"{name}{aliases}", highlight=False)
    return EXIT_OK
