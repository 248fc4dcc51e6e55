"""`referee match GAME -p1 CMD -p2 CMD [--games N] [--sprt elo0=0 elo1=20 ...]`: many games
between two bots in pairs with colours reversed, with the score, the Elo difference and its 95%
interval, normalised Elo, the LOS and, with --sprt, a sequential test that stops once it decides.

The match is a tournament of two players in its own directory (`match.toml`, the store, the
records): running the same command again resumes it (with more --games it grows), and an SPRT
already decided says so without playing. A directory whose games were played with other
settings is refused in this command's own words, before anything is written. The summary goes
to stdout (with --json: one JSON object); the live display to stderr (none with --quiet); with
--events, JSON lines of events go to stdout as with `tournament run`. Exit code: 0 when the
games are played (or the SPRT decided), 3 when games were left void, 130 after Ctrl-C, 2 for a
bad command line or a directory holding another match.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console

from protocols import GAME_HELP, UnknownGame, canonical_name
from referee import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXIT_VOID
from referee.app.game_options import game_options
from referee.app.match_session import MatchRequest, Tallying, open_match
from referee.app.observers import JsonEvents, Observer
from referee.app.tournament_session import SessionSettings, play_tournament
from referee.arguments import (
    POSITION_CAPABLE,
    bot_command,
    command_line_folder,
    parse_anchor,
    parse_clock,
    parse_option_values,
    position_refusal,
    seconds_above_zero,
)
from referee.isolation import IsolationSettings, IsolationUnavailable, choose
from referee.match.settings import TimeSettings
from referee.nofollow import PlantedLink
from referee.openings import OpeningError, load_book
from referee.players import BUILTIN_PREFIX, builtin_refusal
from referee.printable import printable
from referee.records import describe_validation_error, validation_text
from referee.stats.head_to_head import Tally, summary_fields, summary_lines
from referee.stats.sprt import parse_sprt, typical_games
from referee.tournament.config import LoadedConfig
from referee.tournament.match_setup import MatchSpec, default_directory, player_names
from referee.tournament.rating import (
    anchored_ratings,
    difference_fields,
    difference_words,
    rating_difference,
)
from referee.tournament.store import GameRow, open_view
from referee.views.match_live import MatchLive
from referee.views.rating import anchored_words
from referee.views.session_lines import SessionLines


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Many games between two bots, in pairs with colours reversed: score, Elo with its 95% "
        "interval, normalised Elo, LOS, and an optional SPRT that stops once it decides."
    )
    parser.add_argument("game", help=GAME_HELP)
    bots = parser.add_argument_group("the bots")
    bots.add_argument(
        "-p1", "--player1", required=True, type=bot_command, metavar="CMD", help="the first bot"
    )
    bots.add_argument(
        "-p2", "--player2", required=True, type=bot_command, metavar="CMD", help="the second bot"
    )
    bots.add_argument(
        "--name1", metavar="NAME", help="the first bot's name (default: from the commands)"
    )
    bots.add_argument("--name2", metavar="NAME", help="the second bot's name")
    bots.add_argument(
        "--position-capable", choices=("p1", "p2", "both"), default=None,
        help="which of the two understands the protocol's position extension, for openings "
        "(built-in bots all do)",
    )  # fmt: skip
    games = parser.add_argument_group("the games")
    games.add_argument(
        "--games",
        type=int,
        default=100,
        metavar="N",
        help="games at most (100); an odd number is rounded up",
    )
    games.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a game option, e.g. -o size=9 (repeatable)",
    )  # fmt: skip
    games.add_argument(
        "--clock", type=parse_clock, default=None, metavar="TOTAL[+INC]",
        help="a game clock instead of the per-move limit: seconds per side, plus seconds "
        "added after each move, e.g. 60+1",
    )  # fmt: skip
    games.add_argument(
        "--move-timeout", type=seconds_above_zero, metavar="S", help="seconds per move (5)"
    )
    games.add_argument("--seed", type=int, default=1, metavar="N", help="the seed of the games (1)")
    games.add_argument(
        "--isolation", default=None, metavar="LEVEL",
        help="how bots are contained: auto (default), basic, or features joined by + "
        "(see `referee doctor`)",
    )  # fmt: skip
    games.add_argument("-j", "--concurrency", type=int, metavar="N", help="games at once")
    openings = parser.add_argument_group(
        "openings (each pair of games starts from one, colours reversed)"
    )
    openings.add_argument(
        "--opening-plies", type=int, default=0, metavar="K",
        help="start each pair from K random legal plies (seeded by --seed)",
    )  # fmt: skip
    openings.add_argument(
        "--openings", type=Path, default=None, metavar="FILE",
        help="a book of openings, one per line, moves separated by commas",
    )  # fmt: skip
    openings.add_argument(
        "--book-order", choices=("random", "sequential"), default="random",
        help="take the book's openings at random (seeded) or one after the other (random)",
    )  # fmt: skip
    openings.add_argument(
        "--book-start", type=int, default=1, metavar="N",
        help="with --book-order sequential, the first pair takes the first opening on line N "
        "of the book's file or after it (lines are counted as the book's errors count them, "
        "comments and blank lines included) (1)",
    )  # fmt: skip
    statistics = parser.add_argument_group("the statistics")
    statistics.add_argument(
        "--sprt", nargs="*", metavar="KEY=VALUE", default=None,
        help="stop once the SPRT decides: elo0=0 elo1=20 alpha=0.05 beta=0.05 model=logistic "
        "(the defaults; model=normalized for normalised Elo bounds)",
    )  # fmt: skip
    statistics.add_argument(
        "--trinomial", action="store_true",
        help="statistics from single games (wins, draws, losses) instead of game pairs",
    )  # fmt: skip
    statistics.add_argument(
        "--anchor", type=parse_anchor, default=None, metavar="NAME=ELO",
        help="also each bot's rating by the rating model, NAME held at ELO (ELO alone: the "
        "two bots' mean there)",
    )  # fmt: skip
    output = parser.add_argument_group("where and how")
    output.add_argument("--dir", type=Path, default=None, help="(referee-matches/P1-vs-P2)")
    output.add_argument("-q", "--quiet", action="store_true", help="no live display")
    output.add_argument("--events", action="store_true", help="JSON lines of events on stdout")
    output.add_argument(
        "--json", action="store_true", help="the summary as one JSON object on stdout"
    )
    parser.set_defaults(run=run_match)


def run_match(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        request = read_request(args, err)
        opened = open_match(request)
    except (UnknownGame, ValueError) as exc:  # ConfigError is a ValueError
        err.print(f"referee: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    except PlantedLink as exc:  # nothing was written
        err.print(f"referee: cannot write the match: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    loaded, tally = opened.loaded, opened.tally
    if opened.note is not None:
        err.print(opened.note, markup=False, highlight=False)
    if tally.decided():
        err.print("the SPRT had already decided: no game to play", markup=False)
        print_summary(args, out, err, tally, loaded)
        return EXIT_OK
    # The tally first: each game counted before `stop_when` asks.
    observers: list[Observer] = [Tallying(tally), SessionLines(err)]
    if args.events:
        observers.append(JsonEvents(out.file))
    if not args.quiet:
        observers.append(MatchLive(err, tally))
    settings = SessionSettings(
        concurrency=args.concurrency,
        stop_when=tally.decided,
        could_stop=tally.could_decide,
        refuse_broken=partial(broken_refusal, request),
    )
    final = play_tournament(loaded, observers, settings)
    if final is None:
        return EXIT_USAGE
    print_summary(args, out, err, tally, loaded)
    if final.interrupted:
        return EXIT_INTERRUPTED
    if final.void and not tally.decided():
        return EXIT_VOID
    return EXIT_OK


def read_request(args: argparse.Namespace, err: Console) -> MatchRequest:
    """The match the command line describes; ValueError says which option is wrong."""
    game = canonical_name(args.game)
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    if args.concurrency is not None and args.concurrency < 1:
        raise ValueError("--concurrency must be at least 1")
    games = args.games + args.games % 2
    if games != args.games:
        err.print(
            f"--games {args.games} is odd: playing {games}, so that every game has its pair "
            "with colours reversed",
            markup=False,
            highlight=False,
        )
    for flag, command in (("-p1", args.player1), ("-p2", args.player2)):
        if refusal := builtin_refusal(command, game):
            raise ValueError(f"{flag}: {refusal}")
    guessed = player_names(args.player1, args.player2)
    first, second = args.name1 or guessed[0], args.name2 or guessed[1]
    if first == second:
        raise ValueError("the two bots need different names (see --name1, --name2)")
    if args.anchor is not None and args.anchor.player not in (None, first, second):
        raise ValueError(
            f"--anchor: {args.anchor.player} is not a bot of the match ({first}, {second})"
        )
    capable = POSITION_CAPABLE.get(args.position_capable, set())
    options = game_options(game, parse_option_values(args.option))  # in the flag's words
    openings = openings_table(args, game, options)
    if openings and (undeclared := undeclared_bots(args, (first, second), capable)):
        without = "play without --opening-plies and --openings"
        raise ValueError(position_refusal(undeclared, args.position_capable, without))
    spec = MatchSpec(
        game=game,
        players=((first, args.player1), (second, args.player2)),
        games=games,
        seed=args.seed,
        options=options,
        time_control=time_control(args),
        isolation=args.isolation,
        openings=openings,
        position_capable=frozenset(i for i, key in enumerate(("p1", "p2")) if key in capable),
        folder=command_line_folder(),
    )
    check_isolation(args.isolation)
    sprt = parse_sprt(args.sprt) if args.sprt is not None else None
    if sprt is not None and games < (usual := typical_games(sprt)):
        err.print(
            f"note: this SPRT takes about {usual:,} games on average to decide between "
            f"bots {sprt.elo1:g} {'normalised ' if sprt.model == 'normalized' else ''}Elo "
            f"apart (docs/match.md); --games {games} may well end undecided",
            markup=False,
            highlight=False,
        )
    directory = args.dir or default_directory(first, second)
    return MatchRequest(spec, directory, sprt, "trinomial" if args.trinomial else "pentanomial")


def broken_refusal(request: MatchRequest, names: Sequence[str]) -> str:
    """Why the match does not start when the bots `names` cannot (each has said why above), in
    the command line's words: a match is played between two bots that start, or not at all."""
    flags = {
        name: flag for (name, _), flag in zip(request.spec.players, ("-p1", "-p2"), strict=True)
    }
    which = " and ".join(f"{printable(name)} ({flags.get(name, '?')})" for name in names)
    commands = " and ".join(flags.get(name, "?") for name in names)
    return (
        f"not starting the match: {which} cannot start. Fix the command of {commands} and run "
        "the match again."
    )


def check_isolation(level: str | None) -> None:
    """ValueError, naming --isolation, for a level that is unknown or that this machine cannot
    give (the match's config, written from the flags, would be named instead)."""
    try:
        choose(IsolationSettings(level=level or "auto"))
    except ValidationError as exc:
        raise ValueError(f"--isolation: {validation_text(exc.errors()[0])}") from None
    except IsolationUnavailable as exc:
        raise ValueError(f"--isolation: {exc}") from None


def undeclared_bots(
    args: argparse.Namespace, names: tuple[str, str], capable: set[str]
) -> dict[str, str]:
    """The bots ({"p1": name}) that cannot start from an opening: not built-in (those all
    understand it) and not declared by --position-capable."""
    commands = {"p1": args.player1, "p2": args.player2}
    return {
        key: name
        for key, name in zip(("p1", "p2"), names, strict=True)
        if key not in capable and not commands[key].strip().startswith(BUILTIN_PREFIX)
    }


def openings_table(args: argparse.Namespace, game: str, options: dict[str, Any]) -> dict[str, Any]:
    """The match's `[openings]` entries from its options (empty: games from the start); a book
    that cannot be read, or a --book-start past its last opening, is a ValueError naming the
    option."""
    if args.opening_plies < 0:
        raise ValueError("--opening-plies cannot be negative")
    if args.book_start < 1:
        raise ValueError("--book-start must be at least 1")
    if args.opening_plies and args.openings is not None:
        raise ValueError("give --opening-plies or --openings, not both")
    if args.openings is not None:
        path = args.openings.absolute()
        try:
            book = load_book(path, game, options)
        except (OSError, OpeningError) as exc:
            raise ValueError(f"--openings: {exc}") from None
        if args.book_order == "sequential":
            try:
                book.first_from_line(args.book_start)
            except OpeningError as exc:
                raise ValueError(f"--book-start {args.book_start}: {exc}") from None
        return {"book": str(path), "order": args.book_order, "start": args.book_start}
    return {"plies": args.opening_plies} if args.opening_plies else {}


def time_control(args: argparse.Namespace) -> dict[str, float]:
    """The `[time_control]` entries of --move-timeout and --clock, checked."""
    entries: dict[str, float] = {}
    if args.move_timeout is not None:
        entries["move_timeout"] = args.move_timeout
    if args.clock is not None:
        entries["clock_total"], entries["clock_increment"] = args.clock
    try:
        TimeSettings.model_validate(entries)
    except ValidationError as exc:
        raise ValueError(describe_validation_error(exc, "--move-timeout or --clock")) from None
    return entries


def print_summary(
    args: argparse.Namespace, out: Console, err: Console, tally: Tally, loaded: LoadedConfig
) -> None:
    """The summary in words (on stdout; on stderr when stdout carries JSON) and, with --json,
    as one JSON object on stdout."""
    words = err if args.events or args.json else out
    view = open_view(loaded.directory)
    try:
        rows = view.games()
    finally:
        view.close()
    # The rating model's difference beside the pair figures: the league's for the same games.
    model = rating_difference(tally.first, tally.second, rows, loaded.config.game)
    for line in summary_lines(tally.stats(), tally):
        words.print(line, markup=False, highlight=False)
    words.print(difference_words(model, tally.first, tally.second), markup=False, highlight=False)
    anchored = _anchored(args, tally, rows, loaded.config.game)
    if anchored is not None:
        words.print(anchored[0], markup=False, highlight=False)
    words.print(f"match directory: {loaded.directory}", markup=False, highlight=False)
    if args.json:
        fields = summary_fields(tally, str(loaded.directory)) | {"rating": difference_fields(model)}
        if anchored is not None:
            fields["anchored"] = anchored[1]
        out.out(json.dumps(fields), highlight=False)


def _anchored(
    args: argparse.Namespace, tally: Tally, rows: Sequence[GameRow], game: str
) -> tuple[str, dict[str, Any]] | None:
    """With --anchor: both bots' ratings on its scale, in words and for --json (`rows` as
    `tournament results --format json` writes its ratings' rows); where the anchor cannot
    hold (the bot held there swept or was swept), why, in both."""
    if args.anchor is None:
        return None
    try:
        table = anchored_ratings(tally.first, tally.second, rows, game, args.anchor)
    except ValueError as exc:
        return f"rating model, --anchor: {exc}", {"anchor": None, "rows": [], "problem": str(exc)}
    rows_json = [row.model_dump(mode="json") for row in table.rows]
    return anchored_words(table), {"anchor": table.anchor, "rows": rows_json, "problem": None}
