"""The `referee` command: the only module that wires the subcommands together.

`referee play GAME -p1 CMD -p2 CMD` plays one game. The course referee's command line also
works: `referee laskermorris -p1 "python player1.py" -p2 "python player2.py"`, with every one of
its flags accepted with the same meaning.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

from protocols import UnknownGame, canonical_name
from referee import __version__
from referee.commands import check, demo, doctor, games, play, replay, serve, tournament

# Every subcommand module, in the order `referee --help` lists them.
COMMANDS = [play, tournament, demo, replay, serve, check, doctor, games]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="Referee for two-player abstract games played by bot programs.",
        epilog=(
            "The course form `referee laskermorris -p1 CMD -p2 CMD` is the same as "
            "`referee play lasker-morris -p1 CMD -p2 CMD`."
        ),
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.register(subparsers)
    return parser


def normalise_argv(argv: list[str]) -> list[str]:
    """Accept the course form `referee laskermorris ...` as `referee play laskermorris ...`."""
    if argv and not argv[0].startswith("-"):
        try:
            canonical_name(argv[0])
        except UnknownGame:
            return argv
        return ["play", *argv]
    return argv


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(normalise_argv(sys.argv[1:] if argv is None else argv))
    out = Console(soft_wrap=True)
    err = Console(stderr=True)
    code: int = args.run(args, out, err)
    return code


if __name__ == "__main__":
    sys.exit(main())
