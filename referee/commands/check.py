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
from typing import Any

import trio
from pydantic import ValidationError
from rich.console import Console, Group
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from protocols import GAME_HELP, UnknownGame, canonical_name
from referee.arguments import bot_command, command_line_folder, seconds, seconds_above_zero
from referee.commands import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from referee.course.check import (
    DEFAULT_OPPONENT,
    CheckedGame,
    CheckReport,
    Finding,
    check_players,
    describe_settings,
    new_record_dir,
    run_check,
    spread,
)
from referee.course.check_limits import course_limits
from referee.isolation.levels import IsolationUnavailable, describe
from referee.match.host import Host, choose_host
from referee.match.settings import MatchSettings
from referee.nofollow import PlantedLink, make_folder
from referee.players import as_builtin, builtin_refusal, unreachable_player
from referee.records import describe_validation_error
from referee.views.console import wrapped
from referee.views.plain import plain

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
    try:
        game = canonical_name(args.game)
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        if refusal := builtin_refusal(as_builtin(args.opponent), game):
            raise ValueError(f"--opponent: {refusal}")
        limits = course_limits(game, command_line_folder())
        settings = with_flags(limits.settings, args)
        host = choose_host(settings.isolation)
    except ValidationError as exc:  # the flags' types checked the times: the rest, in its words
        err.print(describe_validation_error(exc, "referee check: invalid setting"), markup=False)
        return EXIT_USAGE
    except (UnknownGame, ValueError, IsolationUnavailable) as exc:
        err.print(f"referee check: {exc}", style="red", markup=False, highlight=False)
        return EXIT_USAGE
    if limits.note is not None:
        err.print(f"note: {limits.note}", markup=False, highlight=False)
    isolation = host.isolation
    # Both bots, the built-in opponent too (the referee's own Python), must be reachable by
    # their users here: else no game could be played, and none is.
    players = check_players(game, args.command, args.opponent, args.seed, command_line_folder())
    if refused := unreachable_player(players, isolation):  # the path and the fix
        err.print(f"referee check: {refused}", markup=False, highlight=False)
        return EXIT_USAGE
    try:
        record_dir = records_folder(args.records, game)
    except PlantedLink as exc:
        err.print(f"referee check: cannot write the records: {exc}", markup=False)
        return EXIT_USAGE
    except OSError as exc:
        err.print(f"referee check: cannot create the records folder: {exc}", markup=False)
        return EXIT_USAGE
    # Nothing stops the check: how the bots will be contained is its first line.
    out.print(describe(isolation), markup=False, highlight=False)
    out.print(Text("referee check", style="bold underline"))
    out.print(heading(args.command, game, args.games, isolation.name, settings, limits.source))
    try:
        report = play_with_progress(args, game, settings, host, record_dir, err)
    except KeyboardInterrupt:
        err.print(f"[red]interrupted; finished games are in {record_dir}[/red]")
        return EXIT_INTERRUPTED
    out.print(render_report(report, record_dir))
    return EXIT_OK if report.clean else EXIT_PROBLEMS


def records_folder(asked: Path | None, game: str) -> Path:
    """The folder of this check's records: `--records` (made where missing), else a new one in
    `referee-games/`; reached without following a planted link (`PlantedLink`)."""
    if asked is None:
        return new_record_dir(game)
    make_folder(asked)
    return asked


def play_with_progress(
    args: argparse.Namespace,
    game: str,
    settings: MatchSettings,
    host: Host,
    record_dir: Path,
    err: Console,
) -> CheckReport:
    total = 2 * args.games
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
    with Progress(*columns, console=err, transient=True) as progress:
        task = progress.add_task("playing", total=total)

        def advance(checked: CheckedGame) -> None:
            mark = "clean" if checked.clean else "problem"
            progress.update(task, advance=1, description=f"game {checked.number}: {mark}")

        return trio.run(
            lambda: run_check(
                game,
                args.command,
                settings,
                record_dir,
                games_per_colour=args.games,
                opponent=args.opponent,
                seed=args.seed,
                on_game=advance,
                cwd=command_line_folder(),
                host=host,
            )
        )


def with_flags(settings: MatchSettings, args: argparse.Namespace) -> MatchSettings:
    """The course's (or the default) settings, with what the command line says instead."""
    update: dict[str, Any] = {}
    if args.timeout is not None:  # a limit per move, as asked, in place of a game clock
        update.update(move_timeout=args.timeout, clock_total=None, clock_increment=0.0)
    if args.grace is not None:
        update["grace"] = args.grace
    if args.startup is not None:
        update["startup_allowance"] = args.startup
    if args.isolation is not None:
        update["isolation"] = settings.isolation.model_copy(update={"level": args.isolation})
    # Validated again as a whole: a flag's value is checked as the config's would be.
    return MatchSettings.model_validate({**settings.model_dump(), **update})


def heading(
    command: str,
    game: str,
    games: int,
    level: str,
    settings: MatchSettings,
    course: Path | None = None,
) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold")
    table.add_column()
    table.add_row("bot", plain(command))  # as typed: never read as rich markup
    table.add_row("game", f"{game}: {games} game(s) as blue and {games} as orange")
    table.add_row("isolation", level)
    for key, value in describe_settings(settings).items():
        table.add_row(key, value)
    where = f"the course's, {course}" if course else "the defaults of a course (no course here)"
    table.add_row("limits from", where)
    return table


def games_table(report: CheckReport) -> Table:
    table = Table(title="Games", show_edge=False)
    for column in ("#", "colour", "plies", "result", "how", "isolation"):
        table.add_column(column)
    for g in report.games:
        result = g.record.result
        if result is None:
            outcome, how = "unfinished", ""
        elif result.void:
            outcome, how = "void", result.why
        else:
            # A double forfeit (neither bot started playing) is lost, never a draw.
            outcome = (
                "draw" if result.label == "draw" else "won" if result.winner is g.colour else "lost"
            )
            how = result.why
        style = "green" if g.clean else "red"
        row = [
            str(g.number),
            g.colour.value,
            str(len(g.record.plies)),
            outcome,
            how,
            g.isolation or "",
        ]
        table.add_row(*row, style=style)
    return table


def times_table(report: CheckReport) -> Table:
    table = Table(title="Times of your bot", show_edge=False)
    table.add_column("")
    table.add_column("median", justify="right")
    table.add_column("worst", justify="right")
    rows = [
        ("start-up + first move (as blue)", spread(report.startup)),
        ("time per move", spread(report.move_ms())),
        ("CPU per move", spread(report.cpu_ms())),
    ]
    for label, values in rows:
        median, worst = (f"{v:.1f} ms" for v in values) if values else ("-", "-")
        table.add_row(label, median, worst)
    return table


def finding_panel(finding: Finding) -> Panel:
    # Every sentence whole, at any width: a student may read the report in a CI log.
    # The detail may quote the bot (its line, its last words on stderr): shown, never obeyed.
    parts = [wrapped(plain(finding.detail)), wrapped(Text("hint: " + finding.hint, style="yellow"))]
    if finding.position:
        parts.insert(1, wrapped(plain(finding.position, "cyan", lines=True)))
    return Panel(Group(*parts), title=f"game {finding.game}: {finding.title}", expand=False)


def render_report(report: CheckReport, record_dir: Path) -> Group:
    parts: list[Any] = [games_table(report), times_table(report)]
    parts += [finding_panel(f) for f in report.findings]
    if report.clean:
        verdict = Text("PASS: every game was played cleanly", style="bold green")
    else:
        verdict = Text(f"FAIL: {len(report.findings)} problem(s) found", style="bold red")
    parts += [Text(f"records: {record_dir}", style="dim"), verdict]
    return Group(*parts)
