"""`referee league`: ratings across tournaments and matches, and their dashboard.

    referee league new DIR [--name NAME]         a league folder with its league.toml
    referee league add DIR FOLDER...             gather tournaments and matches (read at once)
    referee league rate DIR                      read what is new, fit every game, bootstrap
    referee league remove DIR SOURCE...          a source and its games out of the league
    referee league show DIR [--game G] [--all-versions] [--top N] [--format table|csv|json]
    referee league export DIR --html OUT         the dashboard as plain files
    referee league serve DIR [--port P]          the dashboard, served

Exit codes: 0 done, 1 done but a source could not be read or a game is refused (its record does
not hold: listed), 2 a bad command line or a folder that is not a league, 130 after Ctrl-C (what
was read and committed before stays).
"""

from __future__ import annotations

import argparse
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import trio
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from referee.arguments import add_rating_options, rating_options
from referee.commands import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from referee.league.config import (
    FitSettings,
    LeagueConfig,
    LeagueError,
    config_path,
    edit_sources,
    load_league,
    save_league,
    source_entry,
    source_folder,
)
from referee.league.discovery import SyncReport, named_refusal, sync, tournament_folders
from referee.league.index import LeagueIndex, open_index
from referee.league.queries import games_played, leaderboard, ranks_skip
from referee.league.rating import los_matrix, rate_league
from referee.nofollow import PlantedLink
from referee.stats.elo import signed_elo
from referee.tournament.store import StoreError
from referee.views.league_rows import los_of_rows, rows_csv, rows_json
from referee.views.league_terminal import leaderboard_table, los_table
from referee.web import add_server_arguments, check_port

EXIT_PROBLEMS = 1
_EVERY = 1 << 62  # rows: `--top` bounds each component, not the whole


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = "Ratings over many tournaments and matches, and their dashboard."
    commands = parser.add_subparsers(dest="league_command", required=True, metavar="ACTION")
    new = commands.add_parser("new", help="make a league folder")
    new.add_argument("dir", type=Path)
    new.add_argument("--name", default=None, help="(the folder's name)")
    new.set_defaults(run=run_new)
    add = commands.add_parser("add", help="add tournament or match folders, and read them")
    add.add_argument("dir", type=Path)
    add.add_argument("sources", nargs="+", type=Path, metavar="FOLDER")
    add.set_defaults(run=run_add)
    remove = commands.add_parser("remove", help="take sources and their games out, and rate again")
    remove.add_argument("dir", type=Path)
    remove.add_argument(
        "sources", nargs="+", metavar="SOURCE", help="as league.toml names it, or its folder"
    )
    remove.set_defaults(run=run_remove)
    rate = commands.add_parser("rate", help="read what is new and rate every game")
    rate.add_argument("dir", type=Path)
    rate.add_argument(
        "--bootstrap",
        type=int,
        default=None,
        metavar="N",
        help="intervals from N resamples (league.toml; default 0: Laplace's)",
    )
    rate.add_argument(
        "--history", choices=["none", "source", "week", "month"], default=None, help="(source)"
    )
    rate.add_argument("--seed", type=int, default=None, help="of the resampling (1)")
    add_rating_options(rate, bootstrap=False, los_matrix=False)
    rate.set_defaults(run=run_rate)
    show = commands.add_parser("show", help="print the leaderboard")
    show.add_argument("dir", type=Path)
    show.add_argument("--game", default=None, help="only this game")
    show.add_argument("--all-versions", action="store_true", help="every version, not the latest")
    show.add_argument(
        "--top", type=int, default=50, help="rows of each game's component, best first (50)"
    )
    show.add_argument("--format", choices=["table", "csv", "json"], default="table", help="(table)")
    show.add_argument(
        "--los-matrix",
        action="store_true",
        help="the likelihood of superiority of every pair of the rows shown (fits them again)",
    )
    show.set_defaults(run=run_show)
    export = commands.add_parser("export", help="write the dashboard as plain files")
    export.add_argument("dir", type=Path)
    export.add_argument("--html", type=Path, required=True, metavar="OUT")
    export.add_argument("--no-replays", action="store_true", help="no replay page per game")
    export.set_defaults(run=run_export)
    serve = commands.add_parser("serve", help="serve the dashboard until Ctrl-C")
    serve.add_argument("dir", type=Path)
    add_server_arguments(serve)
    serve.set_defaults(run=run_serve)


def say(console: Console, text: str) -> None:
    console.print(text, markup=False, highlight=False)


def run_new(args: argparse.Namespace, out: Console, err: Console) -> int:
    folder: Path = args.dir
    if config_path(folder).exists():
        say(err, f"referee league: {config_path(folder)} already exists")
        return EXIT_USAGE
    with guarded(err) as done:
        save_league(folder, LeagueConfig(name=args.name or folder.resolve().name))
        open_index(folder, writer=True).close()
        say(out, f"league {folder}: add tournaments with `referee league add {folder} FOLDER`")
    return done.code


class Outcome:
    code = EXIT_OK


@contextmanager
def guarded(err: Console) -> Iterator[Outcome]:
    """League and store errors as one plain line and exit code 2; Ctrl-C as 130."""
    outcome = Outcome()
    try:
        yield outcome
    except (LeagueError, StoreError, ValueError) as exc:
        say(err, f"referee league: {exc}")
        outcome.code = EXIT_USAGE
    except PlantedLink as exc:  # nothing was written
        say(err, f"referee league: cannot write: {exc}")
        outcome.code = EXIT_USAGE
    except sqlite3.DatabaseError as exc:
        say(err, f"referee league: the league's index cannot be used: {exc}")
        outcome.code = EXIT_USAGE
    except KeyboardInterrupt:
        say(err, "interrupted: what was read before is kept; run the command again")
        outcome.code = EXIT_INTERRUPTED


def run_add(args: argparse.Namespace, out: Console, err: Console) -> int:
    folder: Path = args.dir
    with guarded(err) as done:
        config = load_league(folder)
        entries = list(config.sources)
        for source in args.sources:
            found = list(tournament_folders(source)) if source.is_dir() else []
            if not found:
                raise LeagueError(f"{source}: no tournament or match here (no tournament.sqlite)")
            for path in found:
                entry = source_entry(folder, path)
                if entry not in entries:
                    entries.append(entry)
                    say(err, f"added {path}")
        config = edit_sources(folder, entries)
        done.code = read_sources(folder, config, err)
    return done.code


def run_remove(args: argparse.Namespace, out: Console, err: Console) -> int:
    """Take sources out of league.toml, their games out of the index, and rate again: the
    ratings shown next are those of the games left."""
    folder: Path = args.dir
    with guarded(err) as done:
        config = load_league(folder)
        entries = list(config.sources)
        for name in args.sources:
            entry = _named_source(folder, entries, name)
            entries.remove(entry)
            say(err, f"removed {entry}")
        config = edit_sources(folder, entries)
        index = open_index(folder, writer=True)
        try:
            with progress_bar(err) as step:
                report = sync(index, folder, config, step)
                rate_league(index, config.fit, step)
            done.code = print_sync(report, index, err)
        finally:
            index.close()
    return done.code


def _named_source(folder: Path, entries: list[str], name: str) -> str:
    """The entry of league.toml that `name` is: the entry as written, or a path to its folder
    (from where the command runs), so that a source whose folder is gone can still leave."""
    if name in entries:
        return name
    wanted = Path(name).resolve()
    for entry in entries:
        if source_folder(folder, entry).resolve() == wanted:
            return entry
    raise LeagueError(f"{name}: not a source of the league (`league.toml` names {entries})")


def read_sources(folder: Path, config: LeagueConfig, err: Console) -> int:
    """Bring the index up to date, with progress; EXIT_PROBLEMS if a source could not be read
    or a game is refused."""
    index = open_index(folder, writer=True)
    try:
        with progress_bar(err) as step:
            report = sync(index, folder, config, lambda name, done, total: step(name, done, total))
        return print_sync(report, index, err)
    finally:
        index.close()


def print_sync(report: SyncReport, index: LeagueIndex, err: Console) -> int:
    say(
        err,
        f"{report.sources} sources: {report.read} games read, {report.unchanged} unchanged,"
        f" {report.removed} removed",
    )
    print_list(err, report.problems)
    refused = print_refused(index, err)
    return EXIT_PROBLEMS if report.problems or refused else EXIT_OK


def print_list(err: Console, lines: list[str], most: int = 20) -> None:
    for line in lines[:most]:
        say(err, f"  {line}")
    if len(lines) > most:
        say(err, f"  ... and {len(lines) - most} more")


def print_refused(index: LeagueIndex, err: Console) -> bool:
    """What the league leaves out, from its index: the games refused (each named, with why)
    and the games counted once (copies). True if a game is refused."""
    rows = index.refused()
    refused = [named_refusal(r.source, r.number, r.record, r.problem) for r in rows
               if r.kind == "refused"]  # fmt: skip
    copies = [f"{r.source}: game {r.number} is {r.problem}" for r in rows if r.kind == "copy"]
    if refused:
        games = "game" if len(refused) == 1 else "games"
        say(err, f"{len(refused)} {games} refused, not rated: their records do not hold")
        print_list(err, refused)
    if copies:
        games = "game" if len(copies) == 1 else "games"
        say(err, f"{len(copies)} {games} found again in another folder, counted once:")
        print_list(err, copies, most=5)
    return bool(refused)


@contextmanager
def progress_bar(err: Console) -> Iterator[Callable[[str, int, int], None]]:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), console=err, transient=True) as bar:
        tasks: dict[str, TaskID] = {}

        def step(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done, total=total)

        yield step


def run_rate(args: argparse.Namespace, out: Console, err: Console) -> int:
    folder: Path = args.dir
    with guarded(err) as done:
        config = load_league(folder)
        chosen = {
            key: value
            for key, value in (
                ("bootstrap", args.bootstrap),
                ("history", args.history),
                ("seed", args.seed),
            )
            if value is not None
        }
        settings = FitSettings.model_validate(config.fit.model_dump() | chosen)
        index = open_index(folder, writer=True)
        try:
            with progress_bar(err) as step:
                report = sync(index, folder, config, step)
                rated = rate_league(index, settings, step, rating_options(args))
            done.code = print_sync(report, index, err)
            say(
                err,
                f"rated {rated.players} versions over {rated.games} games"
                f" ({rated.resamples} bootstrap resamples, {rated.steps} history steps)",
            )
            for kind in rated.report.kinds:
                say(
                    err,
                    f"  {kind.name}: first-move advantage {signed_elo(kind.advantage, 0)} Elo,"
                    f" draw margin {kind.draw_margin:.0f} Elo",
                )
            for note in rated.report.notes:
                say(err, f"  {note}")
            show_board(index, out, None, False, 20)
        finally:
            index.close()
    return done.code


def show_board(
    index: LeagueIndex,
    out: Console,
    game: str | None,
    all_versions: bool,
    top: int,
    form: str = "table",
    settings: FitSettings | None = None,
) -> None:
    """The leaderboard, the first `top` rows of each game's component (best ranked first);
    with `settings` (the league's [fit]), the LOS matrix of its rows."""
    played = games_played(index)
    if game is not None and game not in played:
        raise LeagueError(
            f"no game {game!r} in the league (its games: {', '.join(played) or 'none yet'})"
        )
    page = leaderboard(
        index, game=game, all_versions=all_versions, size=_EVERY, per_component=max(1, top)
    )
    los = None
    if settings is not None:
        found = los_matrix(index, settings, [row.version for row in page.rows])
        los = los_of_rows(page.rows, found)
    if form == "table":
        title = f"{page.total} rated {'versions' if all_versions else 'bots'}"
        if len(page.rows) < page.total:
            title += f", the best {max(1, top)} of each component"
        caption = None
        if not all_versions and ranks_skip(page.rows):
            caption = (
                "ranks are the model's among every version of a game: older versions, hidden "
                "here, keep theirs (--all-versions shows them)"
            )
        if not page.total:
            caption = "no games rated yet: add tournaments or matches with `referee league add`"
        out.print(leaderboard_table(page.rows, title, caption))
        if los is not None:
            out.print(los_table(page.rows, los))
    else:  # data for a script: written as is, never wrapped or styled by the console
        text = rows_csv(page.rows, los) if form == "csv" else rows_json(page.rows, los)
        out.file.write(text)
        out.file.flush()


def run_show(args: argparse.Namespace, out: Console, err: Console) -> int:
    with guarded(err) as done:
        config = load_league(args.dir)
        index = open_index(args.dir, writer=False)
        try:
            if "rated_at" not in index.meta():
                raise LeagueError(f"{args.dir}: not rated yet (run `referee league rate`)")
            settings = config.fit if args.los_matrix else None
            show_board(index, out, args.game, args.all_versions, args.top, args.format, settings)
            print_refused(index, err)
        finally:
            index.close()
    return done.code


def run_export(args: argparse.Namespace, out: Console, err: Console) -> int:
    # Deferred: the dashboard's pages load only for an export.
    from referee.web.league_export import export_league

    with guarded(err) as done:
        config = load_league(args.dir)
        index = open_index(args.dir, writer=False)
        try:
            with progress_bar(err) as step:
                files = export_league(
                    index, config, args.html, replays=not args.no_replays, progress=step
                )
        finally:
            index.close()
        say(
            out,
            f"{files.count} files in {args.html}: {files.written} written, {files.unchanged}"
            f" unchanged, {files.removed} of the last export removed;"
            f" open {args.html / 'index.html'}",
        )
    return done.code


def run_serve(args: argparse.Namespace, out: Console, err: Console) -> int:
    # Deferred: the web stack (starlette, hypercorn) loads only to serve the dashboard.
    from referee.web.league_server import serve_league

    with guarded(err) as done:
        check_port(args.port)
        config = load_league(args.dir)
        open_index(args.dir, writer=False).close()
        trio.run(serve_league, args.dir, config, args.host, args.port, err)
    return done.code
