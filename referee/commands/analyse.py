"""`referee analyse GAME ...`: questions the games' literature asks, answered offline.

    referee analyse legionnaires   combinatorial game values of Legionnaires positions
    referee analyse alak           traditional (and Baljeu's) Alak solved from each opening
    referee analyse lielow         Lielow's puzzles: the longest game, the broadest position

Each subcommand's arguments and engine live in `referee/analysis/`; a subcommand's module is
imported only to declare its arguments, and its engine only when it runs.
"""

from __future__ import annotations

import argparse
import importlib

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


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = "Offline analysis of the games: game values, solving, puzzle searches."
    sub = parser.add_subparsers(dest="analysis", required=True, metavar="GAME")
    for name, (module, help_line) in ANALYSES.items():
        importlib.import_module(module).register(sub.add_parser(name, help=help_line))
