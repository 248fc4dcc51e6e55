"""`referee analyse legionnaires`: the combinatorial game value of a Legionnaires position.

Declares the arguments and runs the engine (`referee.analysis.legionnaires`), which is imported
only when the command runs, so building the `referee analyse` parser stays cheap.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from referee import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from rich.console import Console

EPILOG = """\
Convention (Boardman's paper): Left = Black = orange, Right = White = blue, and both players may
move from every position; who cannot move loses. More blue pawns means a more negative value.

examples:
  referee analyse legionnaires --width 3 --height 3 --blue "a1 c1" --orange "a3 c3"
  referee analyse legionnaires --layout rows-5 --json
  referee analyse legionnaires --list-layouts
"""


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "The combinatorial game value of a Legionnaires position: its canonical form, its "
        "outcome class, its atomic weight (when it is all-small) and how many distinct "
        "positions it reaches."
    )
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--width", type=int, default=None, help="number of files (2..26)")
    parser.add_argument("--height", type=int, default=None, help="number of ranks (2..26)")
    parser.add_argument(
        "--blue", default=None, metavar="SQUARES", help='blue (White, Right) pawns, e.g. "a1 c1"'
    )
    parser.add_argument(
        "--orange",
        default=None,
        metavar="SQUARES",
        help='orange (Black, Left) pawns, e.g. "a3 c3"',
    )
    parser.add_argument(
        "--layout",
        default=None,
        metavar="NAME",
        help="one of the paper's positions by name (see --list-layouts) instead of the squares",
    )
    parser.add_argument(
        "--list-layouts",
        action="store_true",
        help="list the named layouts and exit (what the command does when no position is given)",
    )
    parser.add_argument(
        "--max-positions",
        type=int,
        default=None,
        metavar="N",
        help="give up (exit 2) once more than N distinct positions are reached",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.set_defaults(analyse=run_legionnaires)


def run_legionnaires(args: argparse.Namespace, out: Console, err: Console) -> int:
    # Deferred: the analysis loads only when the command runs, not with the parser.
    from referee.analysis import legionnaires

    nothing_named = all(
        value is None for value in (args.width, args.height, args.blue, args.orange, args.layout)
    )
    if args.list_layouts or nothing_named:
        code = legionnaires.print_layouts(out, as_json=args.json)
        if nothing_named and not args.list_layouts:  # what to do next, beside the list
            err.print(
                "these are the paper's positions: compute one with --layout NAME (e.g. "
                "referee analyse legionnaires --layout start-3x3), or give your own with "
                "--width, --height, --blue and --orange",
                highlight=False,
                markup=False,
            )
        return code
    try:
        request = legionnaires.request_from_args(
            width=args.width,
            height=args.height,
            blue=args.blue,
            orange=args.orange,
            layout=args.layout,
        )
    except ValueError as exc:
        err.print(
            f"referee analyse legionnaires: {exc}", highlight=False, markup=False, soft_wrap=True
        )
        return EXIT_USAGE
    try:
        result = legionnaires.analyse_with_progress(request, err, args.max_positions)
    except legionnaires.Interrupted as stopped:
        err.print(
            f"interrupted after {stopped.positions:,} positions: no value computed",
            highlight=False,
        )
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        err.print("interrupted: no value computed", highlight=False)
        return EXIT_INTERRUPTED
    except legionnaires.TooManyPositions as exc:
        err.print(
            f"referee analyse legionnaires: {exc}", highlight=False, markup=False, soft_wrap=True
        )
        return EXIT_USAGE
    legionnaires.print_result(result, out, as_json=args.json)
    return EXIT_OK
