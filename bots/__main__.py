"""The one entry point of the built-in bots: `python -m bots NAME --game GAME [options]`."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bots.config import (
    DEFAULT_MOVETIME,
    DEFAULT_PERFECT_ALAK,
    DEPTH_MODE_MOVETIME,
    MAX_PERFECT_ALAK,
    BotConfig,
)
from bots.player import Chooser, play
from protocols import GAME_HELP, UnknownGame, get_game
from protocols.base import Game

Factory = Callable[[Game[Any, Any, Any], BotConfig], Chooser]

# Bot name -> (module, factory(game, config) returning a chooser). Modules load on first use, so
# a bot loads only what it plays with.
BOTS: dict[str, tuple[str, str]] = {
    "random": ("bots.random_bot", "random_chooser"),
    "greedy": ("bots.greedy_bot", "greedy_chooser"),
    "search": ("bots.search_bot", "search_chooser"),
    "perfect": ("bots.perfect_bot", "perfect_chooser"),
    "applet": ("bots.applet_bot", "applet_chooser"),
    "lielow-reference": ("bots.lielow_reference", "lielow_reference_chooser"),
}


def factory(name: str) -> Factory:
    """The chooser factory of a bot name in `BOTS`."""
    module, function = BOTS[name]
    made: Factory = getattr(importlib.import_module(module), function)
    return made


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def _alak_size(text: str) -> int:
    value = int(text)
    if not 0 <= value <= MAX_PERFECT_ALAK:
        raise argparse.ArgumentTypeError(f"must be 0..{MAX_PERFECT_ALAK}, not {text}")
    return value


def _depth(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {text}")
    return value


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bots",
        description="Run a built-in bot on stdin/stdout, speaking the referee's bot protocol.",
    )
    parser.add_argument("bot", choices=list(BOTS), help="which bot")
    # Built-in names only: listing the plug-ins reads every distribution's metadata, a tenth of
    # a bot's start-up, paid at every game although the help is hardly ever shown.
    parser.add_argument("--game", required=True, help=GAME_HELP)
    parser.add_argument("--seed", type=int, default=None, help="random seed (reproducible play)")
    parser.add_argument(
        "--options", default="{}", help="game options as JSON, e.g. '{\"size\": 9}' for Alak"
    )
    parser.add_argument(
        "--movetime",
        type=_positive,
        default=None,
        help=f"seconds per move, start-up included (default {DEFAULT_MOVETIME}; with --depth "
        f"{DEPTH_MODE_MOVETIME}, a safety cut only)",
    )
    parser.add_argument(
        "--depth",
        type=_depth,
        default=None,
        help="search: stop at this depth (fixed-depth mode); lielow-reference: its depth (3)",
    )
    parser.add_argument(
        "--perfect-alak",
        type=_alak_size,
        default=DEFAULT_PERFECT_ALAK,
        metavar="N",
        help=f"search: play Alak perfectly on boards of up to N points (default "
        f"{DEFAULT_PERFECT_ALAK}, at most {MAX_PERFECT_ALAK}, 0 never; 11 takes seconds to solve)",
    )
    parser.add_argument("--verbose", action="store_true", help="search: report each search")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="perfect, search: where solved tables are read and written (default "
        "$REFEREE_CACHE_DIR, else $XDG_CACHE_HOME/referee, else ~/.cache/referee)",
    )
    return parser.parse_args(argv)


def config_from(args: argparse.Namespace, options: Any) -> BotConfig:
    movetime = args.movetime
    if movetime is None:
        movetime = DEPTH_MODE_MOVETIME if args.depth is not None else DEFAULT_MOVETIME
    return BotConfig(
        seed=args.seed,
        movetime=movetime,
        depth=args.depth,
        options=options,
        perfect_alak=args.perfect_alak,
        verbose=args.verbose,
        cache_dir=args.cache_dir,
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        game = get_game(args.game)
        raw = json.loads(args.options)
        # The default options are the game's own (None): validating options is what imports
        # pydantic, which would cost a bot most of its start.
        options = game.parse_options(raw) if raw else None
        config = config_from(args, options)
        chooser = factory(args.bot)(game, config)
    except (UnknownGame, ValueError) as exc:
        print(f"python -m bots: {exc}", file=sys.stderr)
        return 2
    return play(game, options, chooser, movetime=config.movetime)


if __name__ == "__main__":
    sys.exit(main())
