"""`referee play`: one game between two programs, with the course referee's flags. The command
line is read into a request, which the app plays (referee/app/play_game.py); the views render
its result (referee/views/play_result.py).

What the game needs is imported here; what shows it afterwards (the summary, the web view) only
once it is wanted, so that the bots start as soon as possible after the command does.
"""

from __future__ import annotations

import argparse
import os
import random
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from protocols import GAME_HELP, UnknownGame, canonical_name, get_game
from referee.app.game_options import game_options
from referee.app.play_game import (
    PlayRefused,
    PlayRequest,
    PlayResult,
    PreparedGame,
    WebWatch,
    play_game,
    prepare_game,
)
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
from referee.commands import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXIT_VOID
from referee.isolation import IsolationSettings, describe
from referee.match.host import choose_host
from referee.match.recorder import Listener
from referee.match.settings import MatchSettings
from referee.players import POSITION, PlayerSpec, builtin_refusal, resolve_command
from referee.records import GameRecord, Header, Ply, Result, describe_validation_error
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
    """Read the command line into a request, play it through the app, render what happened."""
    try:
        request = play_request(args)
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
    undeclared = {
        key: player.name
        for key, player in zip(("p1", "p2"), request.players, strict=True)
        if not player.understands(POSITION)
    }
    if request.opening is not None and undeclared:
        refusal = position_refusal(undeclared, args.position_capable, "play without --opening")
        err.print(f"referee: {refusal}", markup=False, highlight=False)
        return EXIT_USAGE
    try:
        game = prepare_game(request)
    except PlayRefused as exc:
        err.print(f"referee: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    # Nothing in the command line or on this machine stops the game: say how the bots will be
    # contained, the first line of a game that starts.
    err.print(describe(game.host.isolation), markup=False, highlight=False)
    listener = move_logger(err) if args.log else None
    if args.visual:
        return run_visual(args, out, err, game, listener)
    played = play_game(game, listener)
    if played.record is None:
        return refused_or_interrupted(err, played, game.record_path)
    show_result(args, out, err, game, played.record)
    return EXIT_VOID if played.record.result is not None and played.record.result.void else EXIT_OK


def play_request(args: argparse.Namespace) -> PlayRequest:
    """The game the command line asks for; a ValueError (or a pydantic ValidationError of the
    settings) says what in it cannot be played, naming the flag."""
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
    isolation = choose_host(settings.isolation).isolation  # chosen once for this process
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
    return PlayRequest(
        game=game_name,
        options=raw_options,
        players=(players[0], players[1]),
        settings=settings,
        isolation=isolation,
        seed=args.seed if args.seed is not None else random.randrange(2**31),
        record_path=args.record or default_record_path(game_name),
        opening=args.opening,
    )


def refused_or_interrupted(err: Console, played: PlayResult, record_path: Path) -> int:
    """What is said of a game that has no record: refused before any bot started, or
    interrupted with its record so far on disk."""
    if played.refusal is not None:
        err.print(f"referee: {played.refusal}", markup=False, highlight=False)
        return EXIT_USAGE
    err.print(f"[red]interrupted; the record so far is in {record_path}[/red]")
    return EXIT_INTERRUPTED


def move_logger(err: Console) -> Listener:
    """`--log`: every record line on stderr as it is played. The view is imported here, before
    the game starts, so that no bot's clock runs while it loads."""
    # Deferred: the views (boards, summaries) load only for a game that shows its moves.
    from referee.views.console import log_line

    def listener(line: Header | Ply | Result) -> None:
        log_line(err, line)

    return listener


def show_result(
    args: argparse.Namespace, out: Console, err: Console, game: PreparedGame, record: GameRecord
) -> None:
    """The game's summary and result, as --debug and --json ask."""
    # Deferred: the views load once the game is over, never while a bot's clock runs.
    from referee.views.play_result import show_play_result

    show_play_result(
        out,
        err,
        record,
        game.record_path,
        game.host.isolation,
        stderr_tails=args.debug,  # without --debug the summary leaves the bots' stderr out
        as_json=args.json,
    )


def run_visual(
    args: argparse.Namespace,
    out: Console,
    err: Console,
    game: PreparedGame,
    listener: Listener | None,
) -> int:
    """`referee play --visual`: the game with its live view, then the view stays up."""
    # Deferred: the web stack (starlette, hypercorn) loads only for --visual.
    from referee.web.server import WebServerError

    codes: list[int] = []

    def finished(record: GameRecord) -> None:
        show_result(args, out, err, game, record)
        assert record.result is not None
        codes.append(EXIT_VOID if record.result.void else EXIT_OK)
        out.file.flush()
        err.print("the web view stays up to replay the game; Ctrl-C to stop")

    def show_url(url: str) -> None:
        err.print(f"[bold]live view: {url}[/bold]", highlight=False)

    try:
        played = play_game(game, listener, WebWatch(DEFAULT_HOST, args.port, show_url, finished))
    except (ValueError, WebServerError) as exc:
        err.print(f"[red]referee: {exc}; choose another with --port[/red]", highlight=False)
        return EXIT_USAGE
    if played.record is None:
        return refused_or_interrupted(err, played, game.record_path)
    return codes[0] if codes else EXIT_VOID
