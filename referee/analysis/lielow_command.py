"""`referee analyse lielow`: Lielow's two puzzles, searched for and written as game records.

    referee analyse lielow --longest --out F   a long complete game, both players prolonging it
    referee analyse lielow --broad --out F     a game reaching a position with 64 legal moves

Only the arguments are declared here; the search (`referee.analysis.lielow_search`, driven by
`referee.analysis.lielow_run`) is imported when the command runs, so `--help` stays fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from referee import EXIT_USAGE

if TYPE_CHECKING:
    from rich.console import Console


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Lielow's puzzles: search for the longest game both players prolong on purpose "
        "(--longest), or a game reaching a position with 64 distinct legal moves (--broad). "
        "The game found is written as a record that `referee replay --verify-only` accepts."
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--longest", action="store_true", help="search for a long complete game")
    which.add_argument(
        "--broad", action="store_true", help="search for a position with 64 legal moves"
    )
    parser.add_argument("--out", type=Path, help="write the game found as a record to this file")
    parser.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    parser.add_argument(
        "--width",
        type=int,
        default=None,
        help="positions the beam keeps per ply (default: 100 for --longest, 200 for --broad); "
        "one width and one seed give one game",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=0,
        help="beams to run, seeds --seed, --seed + 1, ... (default 0: until --seconds are up)",
    )
    parser.add_argument(
        "--capture",
        type=int,
        default=6,
        choices=range(1, 8),
        metavar="1..7",
        help="--longest: what a capture still to come is worth in the beam's score (default 6)",
    )
    parser.add_argument(
        "--seconds", type=float, default=60.0, help="stop searching after this long (default 60)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.set_defaults(analyse=run_lielow)


def run_lielow(args: argparse.Namespace, out: Console, err: Console) -> int:
    if args.seconds <= 0 or (args.width is not None and args.width < 1) or args.runs < 0:
        err.print(
            "[red]referee analyse lielow: --seconds and --width must be positive, "
            "--runs 0 or more[/red]"
        )
        return EXIT_USAGE
    # Deferred: the search and rich's progress load only when the command runs, not with the parser.
    from referee.analysis.lielow_run import run_puzzle

    return run_puzzle(args, out, err)
