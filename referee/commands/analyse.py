"""`referee analyse GAME ...`: questions the games' literature asks, answered offline.

    referee analyse legionnaires   combinatorial game values of Legionnaires positions
    referee analyse alak           traditional (and Baljeu's) Alak solved from each opening
    referee analyse lielow         Lielow's puzzles: the longest game, the broadest position

The analyses come with the optional extra `referee[analysis]` (pyproject.toml), which installs
what they need beyond the referee (pycgt's game algebra). Without it the command prints how to
install it and exits 2; every other command runs without it.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
from typing import TYPE_CHECKING

from referee import EXIT_USAGE

if TYPE_CHECKING:
    from rich.console import Console

# subcommand -> (module with `register(parser)`, help line)
ANALYSES = {
    "legionnaires": (
        "referee.analysis.legionnaires_command",
        "combinatorial game value of a Legionnaires position (canonical form, outcome class)",
    ),
    "alak": (
        "referee.analysis.alak_command",
        "solve Alak from each opening move (traditional or Baljeu's rules)",
    ),
    "lielow": (
        "referee.analysis.lielow_command",
        "Lielow's puzzles: the longest game, a position with 64 legal moves",
    ),
}
# The modules the `analysis` extra installs (its requirements in pyproject.toml, by import name).
EXTRA_MODULES = ("pycgt",)
HINT = (
    "referee analyse needs the analysis extra: pip install 'referee[analysis]' "
    "(from a checkout: pip install -e '.[analysis]')"
)


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Offline analysis of the games: game values, solving, puzzle searches. Needs the "
        "optional extra: pip install 'referee[analysis]'."
    )
    sub = parser.add_subparsers(dest="analysis", required=True, metavar="GAME")
    for name, (module, help_line) in ANALYSES.items():
        # Imported here, only once the command line names `analyse`: the rest of the referee
        # never loads the analysis package. These modules declare arguments and import none of
        # the extra, so `referee analyse GAME --help` works without it; each sets `analyse` to
        # the function that runs it and imports its engine only then.
        importlib.import_module(module).register(sub.add_parser(name, help=help_line))
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: Console, err: Console) -> int:
    """The chosen analysis, or the hint to install the extra when it is missing."""
    if missing_extra():
        err.print(HINT, markup=False, highlight=False)
        return EXIT_USAGE
    code: int = args.analyse(args, out, err)
    return code


def missing_extra() -> list[str]:
    """The modules of the `analysis` extra that this interpreter cannot find."""
    return [name for name in EXTRA_MODULES if not _importable(name)]


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a finder that refuses the name, a broken entry
        return False
