"""`referee serve [FOLDER ...]`: the web view of recorded games and tournaments; and the live view
that `referee play --visual` opens.

The server binds 127.0.0.1 unless `--host` says otherwise, is read-only, and runs until Ctrl-C.
The web modules are imported only when a server starts, so other commands start fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio
from rich.console import Console

from referee.commands import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXIT_VOID
from referee.match import Match
from referee.records import GameRecord
from referee.web import DEFAULT_HOST, DEFAULT_PORT

DEFAULT_FOLDERS = [Path("referee-games"), Path("referee-runs")]

# report(args, out, err, match, record, record_path) -> exit code: `referee play`'s summary.
Report = Callable[[argparse.Namespace, Console, Console, Match, GameRecord, Path], int]


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "serve",
        help="web view of game records and tournaments",
        description=(
            "Serve a read-only web view of the game records under the given folders (default: "
            "./referee-games and ./referee-runs where they exist): a dashboard, and a replay "
            "of every game. Runs until Ctrl-C."
        ),
    )
    parser.add_argument("folders", nargs="*", type=Path, metavar="FOLDER", help="folders to serve")
    add_server_arguments(parser)
    parser.set_defaults(run=run_serve)


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port ({DEFAULT_PORT}; 0 picks one)"
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on ({DEFAULT_HOST}: this machine only)",
    )


def check_port(port: int) -> None:
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be 0..65535, not {port}")


def run_serve(args: argparse.Namespace, out: Console, err: Console) -> int:
    from referee.web.server import WebServerError, check_can_bind

    folders: list[Path] = args.folders or [f for f in DEFAULT_FOLDERS if f.is_dir()]
    try:
        check_port(args.port)
        missing = [str(f) for f in folders if not f.is_dir()]
        if missing:
            raise ValueError(f"not a folder: {', '.join(missing)}")
        check_can_bind(args.host, args.port)  # here, so the message is plain
        trio.run(serve_until_interrupted, folders, args.host, args.port, err)
    except (ValueError, WebServerError) as exc:
        err.print(f"[red]referee serve: {exc}[/red]", highlight=False)
        return EXIT_USAGE
    return EXIT_OK


async def serve_until_interrupted(folders: list[Path], host: str, port: int, err: Console) -> None:
    from referee.web.server import start_web_server, wait_for_interrupt

    async with trio.open_nursery() as nursery:
        server = await start_web_server(nursery, folders, port, host=host)
        shown = ", ".join(str(f) for f in folders) or "no folders"
        err.print(f"serving {shown}", highlight=False)
        err.print(f"[bold]web view: {server.url}/[/bold]  (Ctrl-C to stop)", highlight=False)
        await wait_for_interrupt()
        nursery.cancel_scope.cancel()
    err.print("stopped")


def run_visual(
    args: argparse.Namespace,
    out: Console,
    err: Console,
    match: Match,
    record_path: Path,
    report: Report,
) -> int:
    """`referee play --visual`: the match with its live view, then the view stays up."""
    from referee.web.server import WebServerError, check_can_bind
    from referee.web.watch import play_watched

    codes: list[int] = []

    def finished(record: GameRecord) -> None:
        codes.append(report(args, out, err, match, record, record_path))
        out.file.flush()
        err.print("the web view stays up to replay the game; Ctrl-C to stop")

    def show_url(url: str) -> None:
        err.print(f"[bold]live view: {url}[/bold]", highlight=False)

    try:
        check_port(args.port)
        check_can_bind(DEFAULT_HOST, args.port)  # before any game starts
        watched = trio.run(
            lambda: play_watched(
                match,
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
    if watched.record is None:
        err.print(f"[red]interrupted; the record so far is in {record_path}[/red]")
        return EXIT_INTERRUPTED
    return codes[0] if codes else EXIT_VOID
