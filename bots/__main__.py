"""The one entry point of the built-in bots: `python -m bots NAME --game GAME [options]`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from bots.player import play
from bots.random_bot import random_chooser
from protocols import UnknownGame, game_names, get_game
from protocols.base import Game

# Bot name -> factory(game, seed) returning a chooser (state -> move).
BOTS: dict[str, Callable[[Game[Any, Any, Any], int | None], Any]] = {
    "random": random_chooser,
}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bots",
        description="Run a built-in bot on stdin/stdout, speaking the referee's bot protocol.",
    )
    parser.add_argument("bot", choices=sorted(BOTS), help="which bot")
    parser.add_argument("--game", required=True, help=f"one of: {', '.join(game_names())}")
    parser.add_argument("--seed", type=int, default=None, help="random seed (reproducible play)")
    parser.add_argument(
        "--options", default="{}", help="game options as JSON, e.g. '{\"size\": 9}' for Alak"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        game = get_game(args.game)
        options = game.parse_options(json.loads(args.options))
    except (UnknownGame, ValueError) as exc:
        print(f"python -m bots: {exc}", file=sys.stderr)
        return 2
    return play(game, options, BOTS[args.bot](game, args.seed))


if __name__ == "__main__":
    sys.exit(main())
