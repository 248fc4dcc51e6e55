"""`referee tournament new|run|results|verify|rebuild`: write a config, play (or resume) it,
report results, check every finished game's record, make the store again from the records.

`run` shows a live display on stderr (or nothing with --quiet) and, with --events, prints one
JSON object per event on stdout. Its exit code is 0 when every game is finished, 3 when games
were left void after their replays, 130 after Ctrl-C (run it again to resume), 2 for a bad config
or store. `verify` prints one line per problem and a summary; its exit code is 0 when every
finished game's record holds, 1 when one does not, 2 for a bad config or store.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from protocols import UnknownGame, canonical_name
from referee.app.config import load_config
from referee.app.observers import WebView, tournament_observers
from referee.app.tournament_session import SessionSettings, exit_code, play_tournament
from referee.arguments import add_rating_options, rating_options
from referee.commands import EXIT_OK, EXIT_USAGE
from referee.nofollow import PlantedLink, check_file, write_file
from referee.printable import printable
from referee.tournament.audit import NO_CHAIN, GameAudit, audit_game
from referee.tournament.config import ConfigError, LoadedConfig
from referee.tournament.events import TournamentFinished
from referee.tournament.rebuild import rebuild_store
from referee.tournament.report import build_report
from referee.tournament.resume import open_tournament, store_problem
from referee.tournament.store import (
    STORE_NAME,
    GameRow,
    GameState,
    StoreError,
    StoreView,
    open_view,
)
from referee.tournament.template import (
    describe_bots,
    discover_bots,
    example_config,
    give_folders,
)
from referee.views.session_lines import terminal_observers
from referee.views.tournament import print_report
from referee.web import add_server_arguments, check_address, url_of

T = TypeVar("T")
EXIT_FAILED = 1  # `verify`: a game's record does not hold


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Round robins, gauntlets, group stages (the course runner's file too), knockouts and "
        "Swiss tournaments of many bots: resumable, in parallel."
    )
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    new = sub.add_parser("new", help="write an example config for a folder of bots")
    new.add_argument("bots", type=Path, help="folder with one subfolder (or .py file) per bot")
    new.add_argument("-g", "--game", default="lasker-morris", help="the game (lasker-morris)")
    new.add_argument("-o", "--output", type=Path, default=Path("tournament.toml"))
    new.add_argument("--force", action="store_true", help="overwrite an existing file")
    new.set_defaults(run=run_new)
    run = sub.add_parser("run", help="play a tournament, or resume it")
    run.add_argument("config", type=Path)
    run.add_argument("-j", "--concurrency", type=int, default=None, help="games at once")
    run.add_argument("-q", "--quiet", action="store_true", help="no live display")
    run.add_argument("--events", action="store_true", help="JSON lines of events on stdout")
    run.add_argument(
        "--web",
        action="store_true",
        help="serve the live dashboard while the tournament runs (see --port, --host)",
    )
    add_server_arguments(run)
    run.add_argument(
        "--allow-broken",
        action="store_true",
        help="play even if some bots cannot start (their games are lost); default: refuse",
    )
    run.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="play the games on a Dask cluster: local:N (N workers here) or tcp://HOST:PORT of "
        "a scheduler (see docs/cluster.md); default: [cluster] address, else this machine",
    )
    run.set_defaults(run=run_run)
    replay = sub.add_parser(
        "replay",
        help="play a player's games again (after fixing its command); the old ones are archived",
    )
    replay.add_argument("config", type=Path)
    replay.add_argument("--player", required=True, help="the player whose games to play again")
    replay.add_argument("-j", "--concurrency", type=int, default=None, help="games at once")
    replay.add_argument("-q", "--quiet", action="store_true", help="no live display")
    replay.set_defaults(run=run_replay)
    rebuild = sub.add_parser(
        "rebuild",
        help="make the store again from the game records (when it cannot be read)",
    )
    rebuild.add_argument("config", type=Path)
    rebuild.set_defaults(run=run_rebuild)
    results = sub.add_parser("results", help="standings, ratings and games of a tournament")
    results.add_argument("config", type=Path, help="the config, or the tournament's directory")
    results.add_argument(
        "-f",
        "--format",
        choices=["table", "csv", "json", "course-csv"],
        default="table",
        help="course-csv: the course runner's results CSV (one line per game)",
    )
    results.add_argument("--games", action="store_true", help="list the games (table, csv)")
    add_rating_options(results)
    results.set_defaults(run=run_results)
    verify = sub.add_parser(
        "verify",
        help="check every finished game: its record, hash chain, final hash and result",
    )
    verify.add_argument("config", type=Path, help="the config, or the tournament's directory")
    verify.set_defaults(run=run_verify)


# -- new ------------------------------------------------------------------------------------


def run_new(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        game = canonical_name(args.game)
    except UnknownGame as exc:
        err.print(f"referee: {exc}", markup=False)
        return EXIT_USAGE
    if not args.bots.is_dir():
        err.print(f"referee: {args.bots} is not a folder", markup=False)
        return EXIT_USAGE
    if args.output.exists() and not args.force:
        err.print(f"referee: {args.output} exists (use --force to overwrite)", markup=False)
        return EXIT_USAGE
    try:
        check_file(args.output)  # before any bot is moved
    except PlantedLink as exc:
        err.print(f"referee: cannot write the config: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    try:
        moved = give_folders(args.bots)
    except OSError as exc:
        err.print(f"referee: cannot give each bot of {args.bots} a folder: {exc}", markup=False)
        return EXIT_USAGE
    for program, target in moved:  # a bot reads all of its folder: one of its own each
        err.print(printable(f"moved {program} to {target}"), markup=False, highlight=False)
    if moved and (left := sorted(p.name for p in args.bots.iterdir() if p.is_file())):
        err.print(
            printable(f"left in {args.bots}, where no bot sees them: {', '.join(left)}")
            + " (move a bot's data into its folder)",
            markup=False,
            highlight=False,
        )
    bots = discover_bots(args.bots)
    name = f"{args.bots.resolve().name} {game}"
    text = example_config(bots, args.output, name, game, random.randrange(1, 10**6))
    write_file(args.output, text)  # never through a planted link (checked above)
    unknown = [bot.name for bot in bots if bot.command is None]
    count = len(bots) - len(unknown)
    err.print(f"wrote {args.output} with {count} player{'s' if count != 1 else ''}", markup=False)
    for line in describe_bots(bots):  # what a folder holds when it is not plain how to run it
        err.print(line, markup=False, highlight=False, soft_wrap=True)
    if unknown:
        err.print(printable(f"to complete by hand: {', '.join(unknown)}"), markup=False)
    err.print(f"next: referee tournament run {args.output}", markup=False)
    return EXIT_OK


# -- run ------------------------------------------------------------------------------------


def run_run(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        loaded = load_config(args.config)
    except ConfigError as exc:
        err.print(str(exc), markup=False, highlight=False)
        return EXIT_USAGE
    web = None
    if args.web:
        try:
            web = web_view(args.host, args.port)
        except ValueError as exc:
            err.print(f"referee: {exc}; choose another with --port", markup=False)
            return EXIT_USAGE
        # The first line, before anything else is said: the address to open.
        url = url_of(web.host, web.port)
        err.print(f"dashboard: {url}/  (it stops with the tournament)", highlight=False)
    events = out.file if args.events else None
    observers = tournament_observers(loaded, events=events, web=web)
    observers += terminal_observers(err, loaded.config.name, quiet=args.quiet)
    settings = SessionSettings(
        concurrency=args.concurrency, allow_broken=args.allow_broken, cluster=args.cluster
    )
    final = play_tournament(loaded, observers, settings)
    return finish_run(final, loaded, err, args.quiet)


def finish_run(
    final: TournamentFinished | None, loaded: LoadedConfig, err: Console, quiet: bool
) -> int:
    if final is None:
        return EXIT_USAGE
    if not quiet:
        print_where(err, loaded)
    return exit_code(final)


def run_replay(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        loaded = load_config(args.config)
        if args.player not in loaded.config.player_names:
            known = ", ".join(loaded.config.player_names)
            raise ConfigError(f"{loaded.path}: no player {args.player!r} (players: {known})")
        if loaded.config.format not in ("round-robin", "gauntlet"):
            # A staged tournament's later stages were made from these games' results.
            raise ConfigError(
                f"{loaded.path}: a {loaded.config.format} tournament's games cannot be played "
                "again: its later stages follow from their results"
            )
        store, _ = open_tournament(loaded)
    except ConfigError as exc:
        err.print(str(exc), markup=False, highlight=False)
        return EXIT_USAGE
    except StoreError as exc:
        err.print(store_problem(exc, loaded), markup=False, highlight=False)
        return EXIT_USAGE
    try:
        numbers = store.set_aside(args.player)
    finally:
        store.close()
    err.print(
        f"{args.player}: {len(numbers)} played games set aside (their records stay in "
        f"{loaded.directory / 'games'}); playing them again",
        markup=False,
        highlight=False,
    )
    observers = terminal_observers(err, loaded.config.name, quiet=args.quiet)
    final = play_tournament(loaded, observers, SessionSettings(concurrency=args.concurrency))
    return finish_run(final, loaded, err, args.quiet)


def run_rebuild(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        loaded = load_config(args.config)
        rebuilt = rebuild_store(loaded)
    except (ConfigError, StoreError) as exc:
        err.print(f"referee: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    store = loaded.directory / STORE_NAME
    err.print(
        f"rebuilt {store} from {rebuilt.records} game records: {rebuilt.finished} games "
        f"finished, {rebuilt.to_play} to play",
        markup=False,
        highlight=False,
    )
    if rebuilt.kept is not None:
        err.print(f"the old store is kept as {rebuilt.kept}", markup=False, highlight=False)
    err.print(f"next: referee tournament run {loaded.path}", markup=False, highlight=False)
    return EXIT_OK


def print_where(err: Console, loaded: LoadedConfig) -> None:
    directory = loaded.directory
    err.print(f"store:   {directory / 'tournament.sqlite'}", markup=False, highlight=False)
    err.print(f"records: {directory / 'games'}/", markup=False, highlight=False)
    err.print(
        f"results: referee tournament results {loaded.path} [--format csv|json] [--games]",
        markup=False,
        highlight=False,
    )


def web_view(host: str, port: int) -> WebView:
    """The dashboard's address, checked before the first game (port 0: a free port, chosen
    now so that the address can be said at once); ValueError says why not."""
    return WebView(host, check_address(host, port))


# -- results --------------------------------------------------------------------------------


def open_tournament_view(config_or_directory: Path) -> StoreView:
    """The store of a tournament named by its config or its directory (ConfigError, StoreError)."""
    directory = config_or_directory
    if not directory.is_dir():
        directory = load_config(config_or_directory).directory
    return open_view(directory)


def read_tournament(config: Path, err: Console, read: Callable[[StoreView], T]) -> T | None:
    """Open a tournament's store read-only, `read` it and close it; None (said on `err`) when
    the config or the store cannot be used."""
    try:
        view = open_tournament_view(config)
        try:
            return read(view)
        finally:
            view.close()
    except (ConfigError, StoreError) as exc:
        err.print(str(exc), markup=False, highlight=False)
        return None


def run_results(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        report = read_tournament(args.config, err, lambda v: build_report(v, rating_options(args)))
    except ValueError as exc:  # an anchor that is not a player
        err.print(f"referee: {exc}", markup=False)
        return EXIT_USAGE
    if report is None:
        return EXIT_USAGE
    print_report(out, report, args.format, args.games)
    return EXIT_OK


# -- verify ---------------------------------------------------------------------------------


def run_verify(args: argparse.Namespace, out: Console, err: Console) -> int:
    audits = read_tournament(
        args.config, err, lambda view: audit_games(view, view.games(GameState.FINISHED), err)
    )
    if audits is None:
        return EXIT_USAGE
    print_audits(out, audits)
    return EXIT_OK if all(audit.ok for audit in audits) else EXIT_FAILED


def audit_games(view: StoreView, rows: list[GameRow], err: Console) -> list[GameAudit]:
    """Every game checked in turn, with a progress bar on a terminal (the replays take time)."""
    columns = (TextColumn("verifying"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    audits = []
    game = view.info().game
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as progress:
        task = progress.add_task("games", total=len(rows))
        for row in rows:
            audits.append(audit_game(view, row, game))
            progress.advance(task)
    return audits


def print_audits(out: Console, audits: list[GameAudit]) -> None:
    for audit in audits:
        for problem in audit.problems:
            out.print(f"game {audit.number} ({audit.record}): {problem}", markup=False)
    failed = sum(not audit.ok for audit in audits)
    verdict = f"{failed} failed" if failed else "every record holds"
    out.print(f"verified {len(audits)} finished games: {verdict}", markup=False)
    unchained = sum(NO_CHAIN in audit.notes for audit in audits)
    if unchained:
        out.print(f"note: {unchained} of them have {NO_CHAIN}", markup=False)
