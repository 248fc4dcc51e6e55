"""The `referee` command: the only module that wires the subcommands together.

`referee play GAME -p1 CMD -p2 CMD` plays one game. The course referee's command line also
works: `referee laskermorris -p1 "python player1.py" -p2 "python player2.py"`, with every one of
its flags accepted with the same meaning.

The command line starts fast because it imports only what the chosen command needs: the table
below lists every command with its help line, and a command's module (with trio, pydantic, rich,
the tournament code or the web stack behind it) is imported only when the command line names it.
So `referee --help` loads none of them, and `referee play` loads neither the tournament code nor
the web stack.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, NoReturn

from protocols import UnknownGame, canonical_name
from referee import EXIT_INTERRUPTED, EXIT_USAGE, __version__
from referee.nofollow import PlantedLink

if TYPE_CHECKING:  # rich is imported only once a command runs (the start-up cost)
    from rich.console import Console


class Command(NamedTuple):
    module: str  # its `register(parser)` declares the arguments and sets `run`
    help: str  # the command's line in `referee --help`


# Every subcommand, in the order `referee --help` lists them.
COMMANDS: dict[str, Command] = {
    "play": Command("referee.commands.play", "play one game between two programs"),
    "tournament": Command(
        "referee.commands.tournament",
        "run a tournament from a config file (new, run, results, verify)",
    ),
    "match": Command(
        "referee.commands.match",
        "many games between two bots: Elo, LOS, and an SPRT that stops when it decides",
    ),
    "league": Command(
        "referee.commands.league",
        "ratings across tournaments and matches, and their dashboard (new, add, rate, show...)",
    ),
    "demo": Command(
        "referee.commands.demo", "a live round robin of the built-in bots in every game"
    ),
    "replay": Command(
        "referee.commands.replay", "re-verify a game record and show it (terminal or HTML)"
    ),
    "serve": Command("referee.commands.serve", "web view of game records and tournaments"),
    "check": Command(
        "referee.commands.check",
        "check a bot before a tournament (plays it against a built-in bot)",
    ),
    "course": Command(
        "referee.commands.course",
        "a course's tournament: new, collect, check, report, grades",
    ),
    "arena": Command(
        "referee.commands.arena",
        "a course's server for the whole term: new, accounts, serve, invite, token, disable",
    ),
    "analyse": Command(
        "referee.commands.analyse",
        "offline analysis: Legionnaires values, Alak solved, Lielow's puzzles",
    ),
    "doctor": Command("referee.commands.doctor", "show the isolation available for bots, and why"),
    "games": Command("referee.commands.games", "list the games"),
}


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command `argv` names: its first word that is not an option (`referee` itself takes
    only -h and --version, neither with a value), if that is a command."""
    word = next((arg for arg in argv if not arg.startswith("-")), None)
    return word if word in COMMANDS else None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for the command line `argv`: every command with its help line, and the
    arguments of the command `argv` names, whose module alone is imported."""
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
    chosen = chosen_command(argv)
    for name, command in COMMANDS.items():
        subparser = subparsers.add_parser(name, help=command.help)
        if name == chosen:
            importlib.import_module(command.module).register(subparser)
            own_usage(subparser)
    return parser


def own_usage(parser: argparse.ArgumentParser) -> None:
    """Let `parser` and every subcommand under it name itself in the arguments it parses, so
    that an option none of them knows is refused with the usage of the (sub)command it was
    given to, not the top level's."""
    parser.set_defaults(usage_parser=parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                own_usage(sub)


def parse(parser: argparse.ArgumentParser, arguments: list[str]) -> argparse.Namespace:
    """The arguments; an unknown one is a usage error of the subcommand it was given to."""
    args, unknown = parser.parse_known_args(arguments)
    if unknown:
        owner: argparse.ArgumentParser = getattr(args, "usage_parser", parser)
        owner.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def normalise_argv(argv: list[str]) -> list[str]:
    """Accept the course form `referee laskermorris ...` as `referee play laskermorris ...`.
    A command's name is never looked up as a game: resolving a plug-in game's name scans the
    installed packages, which `referee play lasker-morris` has no need of."""
    if argv and not argv[0].startswith("-") and argv[0] not in COMMANDS:
        try:
            canonical_name(argv[0])
        except UnknownGame:
            return argv
        return ["play", *argv]
    return argv


def run_command(
    argv: list[str] | None = None,
    out: Console | None = None,
    err: Console | None = None,
) -> tuple[int, argparse.Namespace]:
    """Run the command line `argv` (default: the process's): its exit code and its arguments.
    The command writes to `out` and `err`, by default the process's stdout and stderr (a caller
    in the same process, such as a test, passes consoles of its own)."""
    arguments = normalise_argv(sys.argv[1:] if argv is None else argv)
    args = parse(build_parser(arguments), arguments)
    # Deferred: `--help`, `--version` and a usage error never need rich.
    from rich.console import Console

    if out is None:
        out = Console(soft_wrap=True)
    if err is None:
        # Messages are wrapped to fit a terminal; in a log or a pipe each stays one line,
        # whole, so that it can be read and searched as it was said.
        err = Console(stderr=True, soft_wrap=not sys.stderr.isatty())
    try:
        code: int = args.run(args, out, err)
    except (PlantedLink, BaseExceptionGroup) as exc:
        # A command refuses a planted link before it starts anything; one planted meanwhile
        # (a race) stops it here, named, rather than with a traceback. Nothing went through it.
        planted = exc if isinstance(exc, PlantedLink) else only_planted_link(exc)
        if planted is None:
            raise
        err.print(f"referee: cannot write: {planted}", markup=False, highlight=False)
        code = EXIT_USAGE
    return code, args


def only_planted_link(group: BaseExceptionGroup[BaseException]) -> PlantedLink | None:
    """The first `PlantedLink` of a group (from a nursery) that holds nothing else, or None."""
    planted, rest = group.split(PlantedLink)
    if planted is None or rest is not None:
        return None
    found: BaseException = planted
    while isinstance(found, BaseExceptionGroup):
        found = found.exceptions[0]
    return found if isinstance(found, PlantedLink) else None


def main(argv: list[str] | None = None) -> int:
    """The command line `argv`, run in this process; its exit code."""
    return run_command(argv)[0]


def exit_at_once(code: int) -> NoReturn:
    """Exit without the interpreter's finalization, which tears down every module and object
    one by one: about 60 ms of CPU and of waiting at the end of a single game, for memory that
    the system takes back whole anyway. What an exit must do is still done: the atexit handlers
    run and the standard streams are flushed. Only when no thread is left that Python would
    wait for, and only for a command that leaves no file unwritten (`exit_at_once` in its
    defaults: `referee play` flushes its record line by line and closes it)."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            continue  # a closed pipe: nothing more can be said there anyway
    os._exit(code)


def program() -> NoReturn:
    """The `referee` program."""
    try:
        code, args = run_command()
    except KeyboardInterrupt:
        # Ctrl-C before a command had its own handler in place (while it was still loading):
        # nothing was started, so the usual "interrupted" and exit code, not a traceback.
        print("interrupted", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
    waited_for = [
        t for t in threading.enumerate() if not t.daemon and t is not threading.main_thread()
    ]
    if getattr(args, "exit_at_once", False) and not waited_for:
        exit_at_once(code)
    sys.exit(code)


if __name__ == "__main__":
    program()
