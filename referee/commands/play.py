"""`referee play`: one game between two programs, with the course referee's flags.

What the game needs is imported here; what shows it afterwards (the summary, the web view) only
once it is wanted, so that the bots start as soon as possible after the command does.
"""

from __future__ import annotations

import argparse
import json
import os
import random
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import trio
from pydantic import ValidationError

from protocols import GAME_HELP, UnknownGame, canonical_name, get_game
from referee.app.game_options import game_options
from referee.arguments import (
    POSITION_CAPABLE,
    bot_command,
    command_line_folder,
    parse_clock,
    parse_option_values,
    position_refusal,
    seconds,
    seconds_above_zero,
)
from referee.bot import unwrap_single
from referee.commands import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXIT_VOID
from referee.isolation import (
    IsolationSettings,
    describe,
    ran_as_root_warning,
)
from referee.match import driver
from referee.match.host import Host, choose_host, run_log
from referee.match.order import GameOrder
from referee.match.recorder import Listener
from referee.match.settings import MatchSettings
from referee.nofollow import PlantedLink, check_file
from referee.openings import OpeningError, canonical_opening
from referee.players import (
    POSITION,
    OpeningRefused,
    PlayerSpec,
    builtin_refusal,
    refuse_undeclared,
    resolve_command,
    unreachable_player,
)
from referee.records import GameRecord, Header, Ply, Result, describe_validation_error
from referee.tournament.bot_folders import contain_run
from referee.verify import verify_record
from referee.web import DEFAULT_HOST, check_address

if TYPE_CHECKING:
    from rich.console import Console

DEFAULT_RECORD_DIR = Path("referee-games")
# The flag that sets each of the match's settings, for a message about it.
FLAGS = {
    "move_timeout": "-t/--timeout",
    "grace": "--grace",
    "startup_allowance": "--startup",
    "clock_total": "--clock",
    "clock_increment": "--clock",
    "level": "--isolation",
}


def _flag_pair(
    parser: argparse.ArgumentParser, short: str, long: str, default: bool, help: str
) -> None:
    """A course-style on/off pair: `-x/--thing` and `-nx/--no-thing`."""
    dest = long.replace("-", "_")
    parser.add_argument(f"-{short}", f"--{long}", dest=dest, action="store_true", help=help)
    parser.add_argument(
        f"-n{short}", f"--no-{long}", dest=dest, action="store_false", help=f"opposite of --{long}"
    )
    parser.set_defaults(**{dest: default})


def opening_moves(text: str) -> str:
    """An opening as given on the command line: one without a move (`""`, `", "`) is a usage
    error, never a game from the start."""
    if not text.replace(",", " ").replace(";", " ").strip():
        raise argparse.ArgumentTypeError(
            'empty: give the moves of the opening separated by commas, e.g. "c, e", or leave '
            "--opening out to play from the start"
        )
    return text


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p1", "--player1", required=True, type=bot_command, metavar="CMD", help="first player"
    )
    parser.add_argument(
        "-p2", "--player2", required=True, type=bot_command, metavar="CMD", help="second player"
    )
    parser.add_argument(
        "-t",
        "--timeout",
        type=seconds_above_zero,
        default=5.0,
        help="seconds per move (default 5)",
    )
    parser.add_argument("--grace", type=seconds, default=0.5, help="extra seconds per move (0.5)")
    parser.add_argument(
        "--startup", type=seconds, default=5.0, help="extra seconds on each first move (5)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed for the colour draw")
    parser.add_argument("--name1", default="player1", help="the first player's name (player1)")
    parser.add_argument("--name2", default="player2", help="the second player's name (player2)")
    parser.add_argument(
        "--clock",
        type=parse_clock,
        default=None,
        metavar="TOTAL[+INC]",
        help="a game clock instead of the per-move limit: seconds per side for the game, plus "
        "seconds added after each move, e.g. 300+2",
    )
    parser.add_argument(
        "--isolation",
        default="auto",
        metavar="LEVEL",
        help="how bots are contained: auto (the strongest this machine offers; default), basic, "
        "or features joined by + (sandbox, users, cgroup); see `referee doctor`. Bots get your "
        "environment; their folder stays writable where the referee is not root (a root "
        "referee's bots run as users of their own, and their folder is read-only to them)",
    )
    parser.add_argument(
        "--opening",
        default=None,
        type=opening_moves,
        metavar="MOVES",
        help='start from an opening: moves separated by commas, e.g. "h1 d1 r0, h2 d2 r0" (the '
        "bots must understand the protocol's position extension: see --position-capable)",
    )
    parser.add_argument(
        "--position-capable",
        choices=("p1", "p2", "both"),
        default=None,
        help="which of the two programs understands the position extension (built-in bots all "
        "do); an opening with a player that does not is refused",
    )
    parser.add_argument(
        "--allow-network",
        action="store_true",
        help="let the bots use the network (where the referee is root, each has none by default)",
    )
    _flag_pair(parser, "r", "random-assignment", True, "draw colours at random (default)")
    _flag_pair(parser, "v", "visual", False, "watch the game live in a web page")
    _flag_pair(parser, "l", "log", False, "print every move as it is played")
    parser.add_argument(
        "--freeze",
        action="store_true",
        help="freeze a bot that keeps using CPU after its answer (tournaments do; the course "
        "referee does not, so a single game does not unless asked)",
    )
    _flag_pair(parser, "d", "debug", False, "show the bots' stderr and referee details")
    parser.add_argument("--port", type=int, default=8000, help="port of the web view (8000)")
    parser.add_argument("--record", type=Path, default=None, help="where to write the record")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.add_argument(
        "--no-repetition",
        action="store_true",
        help="no draw by repetition (the course code's behaviour)",
    )
    parser.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option, e.g. -o size=9 (repeatable)",
    )


def register(play: argparse.ArgumentParser) -> None:
    """Declare the arguments of `referee play` on its parser."""
    play.description = (
        "Play one game. Player commands are split like a shell would (no shell is run); "
        "`builtin:random` runs a built-in bot. Colours are drawn at random unless "
        "--no-random-assignment makes -p1 blue. --visual serves a live web view of the "
        "game on 127.0.0.1:--port and keeps it up after the game until Ctrl-C."
    )
    play.add_argument("game", help=GAME_HELP)
    add_play_arguments(play)
    play.set_defaults(run=run_play, exit_at_once=True)


def play_isolation(level: str, network: bool) -> IsolationSettings:
    """The isolation `referee play` gives its bots: as under the course referee, the caller's
    environment (its virtualenv, PYTHONPATH, libraries installed with --user), and where the
    referee is not root, their folder writable (they run as the caller's own user, who may write
    beside their files anyway). A root referee's bots run as users of their own, and their
    folder is read-only to them, whatever its permissions: a folder every user may write to
    would let a bot plant links there for the next root referee, or fill the disk."""
    return IsolationSettings(
        level=level, writable_dir=os.geteuid() != 0, environment="caller", network=network
    )


def default_record_path(game: str) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return DEFAULT_RECORD_DIR / f"{game}-{stamp}-{random.randrange(16**6):06x}.jsonl"


def run_play(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        game_name = canonical_name(args.game)
        game = get_game(game_name)
        for flag, command in (("-p1", args.player1), ("-p2", args.player2)):
            if refusal := builtin_refusal(command, game_name):
                raise ValueError(f"{flag}: {refusal}")
        raw_options = game_options(game_name, parse_option_values(args.option))
        if args.no_repetition:
            if "repetition" not in game.options_model.model_fields:
                raise ValueError(f"{game_name} has no repetition rule to switch off")
            raw_options["repetition"] = 0
        options = game.parse_options(raw_options)
        settings = MatchSettings(
            move_timeout=args.timeout,
            grace=args.grace,
            startup_allowance=args.startup,
            random_assignment=args.random_assignment,
            freeze=args.freeze,
            clock_total=args.clock[0] if args.clock else None,
            clock_increment=args.clock[1] if args.clock else 0.0,
            isolation=play_isolation(args.isolation, args.allow_network),
        )
        host = choose_host(settings.isolation)
        if args.visual:  # the address taken is said before anything starts, as a usage error
            try:
                check_address(DEFAULT_HOST, args.port)
            except ValueError as exc:
                raise ValueError(f"{exc}; choose another with --port") from None
    except ValidationError as exc:
        described = describe_validation_error(exc, "referee: invalid setting", FLAGS)
        err.print(described, markup=False, highlight=False)
        return EXIT_USAGE
    except (UnknownGame, ValueError) as exc:  # IsolationUnavailable is a ValueError
        err.print(f"referee: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    record_path = args.record or default_record_path(game_name)
    capable = POSITION_CAPABLE.get(args.position_capable, set())
    players = [
        PlayerSpec(
            name=name,
            command=resolve_command(cmd, game_name, options),
            cwd=command_line_folder(),
            capabilities=frozenset({POSITION} if key in capable else ()),
        )
        for key, name, cmd in (("p1", args.name1, args.player1), ("p2", args.name2, args.player2))
    ]
    undeclared = {
        key: player.name
        for key, player in zip(("p1", "p2"), players, strict=True)
        if not player.understands(POSITION)
    }
    if args.opening is not None and undeclared:
        refusal = position_refusal(undeclared, args.position_capable, "play without --opening")
        err.print(f"referee: {refusal}", markup=False, highlight=False)
        return EXIT_USAGE
    # Each kept from the other's files, and records; a referee error's log by the record.
    isolation = contain_run(host.isolation, players)
    host = Host(isolation, run_log(record_path.parent))
    try:
        opening: list[str] = []
        if args.opening is not None:
            opening = canonical_opening(game_name, raw_options, args.opening)
        order = GameOrder(
            game=game_name,
            options=raw_options,
            players=(players[0], players[1]),
            settings=settings,
            seed=seed,
            opening=tuple(opening),
        )
        refuse_undeclared(order.players, order.opening)
    except (OpeningError, OpeningRefused) as exc:
        err.print(f"referee: --opening: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    if refused := unreachable_player(players, isolation):  # the path and the fix
        err.print(f"referee: {refused}", markup=False, highlight=False)
        return EXIT_USAGE
    try:
        check_file(record_path)  # a planted link, refused before anything starts
    except PlantedLink as exc:
        err.print(f"referee: cannot write the record: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    # Nothing in the command line or on this machine stops the game: say how the bots will be
    # contained, the first line of a game that starts.
    err.print(describe(isolation), markup=False, highlight=False)
    listener = move_logger(err) if args.log else None
    if args.visual:
        return run_visual(args, out, err, order, host, listener, record_path)
    try:
        record = trio.run(
            lambda: driver.play(order, host, record_path=record_path, listener=listener)
        )
    except KeyboardInterrupt:
        err.print(f"[red]interrupted; the record so far is in {record_path}[/red]")
        return EXIT_INTERRUPTED
    except PlantedLink as exc:  # planted since it was checked: raised before any bot starts
        err.print(f"referee: cannot write the record: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    return report_play(args, out, err, host, record, record_path)


def move_logger(err: Console) -> Listener:
    """`--log`: every record line on stderr as it is played. The view is imported here, before
    the game starts, so that no bot's clock runs while it loads."""
    # Deferred: the views (boards, summaries) load only for a game that shows its moves.
    from referee.views.console import log_line

    def listener(line: Header | Ply | Result) -> None:
        log_line(err, line)

    return listener


def report_play(
    args: argparse.Namespace,
    out: Console,
    err: Console,
    host: Host,
    record: GameRecord,
    record_path: Path,
) -> int:
    # Deferred: the views load once the game is over, never while a bot's clock runs.
    from referee.views.console import course_result_line, print_summary

    result = record.result
    assert result is not None
    # Without --debug the summary leaves the bots' stderr out.
    played = verify_record(record)  # the position the game ended in, played through again
    game = get_game(record.header.game)
    print_summary(err, game, record, played.states[-1], stderr_tails=args.debug)
    for side, report in result.bots.items():
        name = record.header.players[side].name
        warning = ran_as_root_warning(name, host.isolation, report.isolation, report.isolation_note)
        if warning:
            err.print(warning, markup=False, highlight=False)
    err.print(f"record: {record_path}")
    if args.json:
        payload = {
            "record": str(record_path),
            "players": {
                s.value: p.model_dump(mode="json") for s, p in record.header.players.items()
            },
            # The moves played before the bots took over (None: the game started at the start);
            # `plies` counts the bots' moves after them.
            "opening": record.header.opening,
            **result.model_dump(mode="json", exclude={"type"}),
            "result": result.label,  # in one word: blue, orange, draw, double-forfeit, void
        }
        out.out(json.dumps(payload), highlight=False)
    else:
        out.out(course_result_line(result), highlight=False)
    return EXIT_VOID if result.void else EXIT_OK


def run_visual(
    args: argparse.Namespace,
    out: Console,
    err: Console,
    order: GameOrder,
    host: Host,
    listener: Listener | None,
    record_path: Path,
) -> int:
    """`referee play --visual`: the game with its live view, then the view stays up."""
    # Deferred: the web stack (starlette, hypercorn) loads only for --visual.
    from referee.web.live import chain
    from referee.web.server import WebServerError, check_can_bind
    from referee.web.watch import play_watched

    codes: list[int] = []

    def finished(record: GameRecord) -> None:
        codes.append(report_play(args, out, err, host, record, record_path))
        out.file.flush()
        err.print("the web view stays up to replay the game; Ctrl-C to stop")

    def show_url(url: str) -> None:
        err.print(f"[bold]live view: {url}[/bold]", highlight=False)

    async def play(live: Listener) -> GameRecord:
        lines = chain(listener, live)
        return await driver.play(order, host, record_path=record_path, listener=lines)

    try:
        check_can_bind(DEFAULT_HOST, args.port)  # before any game starts (the port is checked)
        watched = trio.run(
            lambda: play_watched(
                play,
                record=record_path,
                port=args.port,
                host=DEFAULT_HOST,
                folders=[record_path.parent],
                title=record_path.stem,
                on_url=show_url,
                on_finished=finished,
            )
        )
    except (ValueError, WebServerError) as exc:
        err.print(f"[red]referee: {exc}; choose another with --port[/red]", highlight=False)
        return EXIT_USAGE
    except BaseExceptionGroup as group:  # the record refused, from inside the view's nursery
        if not isinstance(planted := unwrap_single(group), PlantedLink):
            raise
        err.print(f"referee: cannot write the record: {planted}", markup=False, highlight=False)
        return EXIT_USAGE
    if watched.record is None:
        err.print(f"[red]interrupted; the record so far is in {record_path}[/red]")
        return EXIT_INTERRUPTED
    return codes[0] if codes else EXIT_VOID
