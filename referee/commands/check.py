"""`referee check GAME "CMD"`: a student's pre-flight before a tournament.

Plays the bot against a built-in bot a few times in each colour, under the course's time control
(`referee/course/check_limits.py`: the course of the folder it is run in, else the time control
`referee course new` writes) and the limits and isolation a tournament uses, and prints what went
wrong in plain words: illegal moves with the position, protocol mistakes with the likely fix,
limits hit, and the bot's times. Exit code 0 only when every game was played cleanly, 1
otherwise (2: usage error, 130: interrupted).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.text import Text

from protocols import GAME_HELP
from referee.app.check_bot import (
    CheckRefused,
    CheckRequest,
    CheckResult,
    PreparedCheck,
    check_bot,
    prepare_check,
)
from referee.arguments import bot_command, command_line_folder, seconds, seconds_above_zero
from referee.commands import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from referee.course.check import DEFAULT_OPPONENT, CheckedGame
from referee.course.check_view import heading, render_report
from referee.isolation.levels import describe

EXIT_PROBLEMS = 1


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Play the bot against a built-in bot in both colours, under the course's time limits "
        "(its course.toml or tournament.toml, here or in a folder above; else 2 s a move) and "
        "tournament limits and isolation, and report every problem with a hint. Exit code 0 "
        "only if every game was clean."
    )
    parser.add_argument("game", help=GAME_HELP)
    parser.add_argument(
        "command", type=bot_command, help='the bot\'s command, e.g. "python3 my_bot.py"'
    )
    parser.add_argument("-n", "--games", type=int, default=2, help="games per colour (2)")
    # The time control and isolation default to the course's (course.toml, or the course
    # runner's tournament.toml, here or in a folder above), else to `referee course new`'s.
    parser.add_argument(
        "-t",
        "--timeout",
        type=seconds_above_zero,
        default=None,
        help="seconds per move (the course's, or 2)",
    )
    parser.add_argument(
        "--grace", type=seconds, default=None, help="extra seconds per move (the course's, or 0.5)"
    )
    parser.add_argument(
        "--startup",
        type=seconds,
        default=None,
        help="extra seconds, first move (the course's, or 5)",
    )
    parser.add_argument(
        "--isolation",
        default=None,
        help="auto (the default, or the course's), basic, or e.g. sandbox+cgroup",
    )
    parser.add_argument(
        "--opponent",
        default=DEFAULT_OPPONENT,
        type=bot_command,
        help="a built-in bot (random, greedy, search, perfect; default random) or a command",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of a built-in opponent (1)")
    parser.add_argument("--records", type=Path, default=None, help="directory for the records")
    parser.set_defaults(run=run_check_command)


def run_check_command(args: argparse.Namespace, out: Console, err: Console) -> int:
    check = prepare_check(request_of(args))
    if check.note is not None:
        err.print(f"note: {check.note}", markup=False, highlight=False)
    if isinstance(check, CheckRefused):
        style = "red" if check.bad_flag else None
        err.print(check.message, style=style, markup=False, highlight=False)
        return EXIT_USAGE
    isolation = check.host.isolation
    # Nothing stops the check: how the bots will be contained is its first line.
    out.print(describe(isolation), markup=False, highlight=False)
    out.print(Text("referee check", style="bold underline"))
    out.print(
        heading(
            args.command,
            check.game,
            args.games,
            isolation.name,
            check.settings,
            check.limits_source,
        )
    )
    result = play_with_progress(check, err)
    if result.report is None:
        err.print(f"[red]interrupted; finished games are in {result.record_dir}[/red]")
        return EXIT_INTERRUPTED
    out.print(render_report(result.report, result.record_dir))
    return EXIT_OK if result.report.clean else EXIT_PROBLEMS


def request_of(args: argparse.Namespace) -> CheckRequest:
    """The check the command line asks for, as the app takes it."""
    records: Path | None = args.records
    return CheckRequest(
        game=args.game,
        command=args.command,
        games_per_colour=args.games,
        opponent=args.opponent,
        seed=args.seed,
        cwd=command_line_folder(),
        records=records,
        timeout=args.timeout,
        grace=args.grace,
        startup=args.startup,
        isolation=args.isolation,
    )


def play_with_progress(check: PreparedCheck, err: Console) -> CheckResult:
    total = 2 * check.request.games_per_colour
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
    with Progress(*columns, console=err, transient=True) as progress:
        task = progress.add_task("playing", total=total)

        def advance(checked: CheckedGame) -> None:
            mark = "clean" if checked.clean else "problem"
            progress.update(task, advance=1, description=f"game {checked.number}: {mark}")

        return check_bot(check, on_game=advance)
