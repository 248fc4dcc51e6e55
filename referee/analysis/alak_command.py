"""`referee analyse alak`: Alak solved from each opening move, under either rule set.

    referee analyse alak --size 6 --variant traditional   who wins after each first move
    referee analyse alak --size 7 --variant baljeu --json

Only the arguments are declared here; the solver (`referee.analysis.alak_solve`) is imported
when the command runs, so `referee analyse --help` stays fast.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from referee import EXIT_USAGE

if TYPE_CHECKING:
    from rich.console import Console

VARIANTS = ("traditional", "baljeu")


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Solve Alak on a small board from each opening move and print the result of perfect "
        "play after it (blue moves first). --variant traditional is the Go-like game of the "
        "rules page (suicide barred, ko, passing, territory scoring); baljeu is the default "
        "game of the referee."
    )
    parser.add_argument("--size", type=int, default=6, help="number of points, 1..26 (default 6)")
    parser.add_argument(
        "--variant", choices=VARIANTS, default="traditional", help="rule set (default traditional)"
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=0.0,
        help="give up after this many seconds (exit 3; default: no limit)",
    )
    parser.add_argument(
        "--max-states",
        type=int,
        default=12_000_000,
        help="give up (exit 3) before the search holds more states than this (default 12 "
        "million: enough for 11 traditional points)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.set_defaults(analyse=run_alak)


def run_alak(args: argparse.Namespace, out: Console, err: Console) -> int:
    if not 1 <= args.size <= 26:
        err.print(f"--size: an Alak board has 1..26 points, not {args.size}")
        return EXIT_USAGE
    # Deferred: the solver and rich's progress load only when the command runs, not with the parser.
    from referee.analysis.alak_run import run

    return run(args, out, err)
