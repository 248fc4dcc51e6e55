"""`referee serve [FOLDER ...]`: the web view of recorded games and tournaments.

The server binds 127.0.0.1 unless `--host` says otherwise, is read-only, and runs until Ctrl-C.
The web modules are imported only when a server starts, so other commands start fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import trio
from rich.console import Console

from referee.commands import EXIT_OK, EXIT_USAGE
from referee.web import add_server_arguments, check_port

# Served when no folder is named: among them where `referee play` and `referee check` write their
# records (referee-games) and where `referee demo` plays its tournaments (referee-demo).
DEFAULT_FOLDERS = [Path("referee-games"), Path("referee-runs"), Path("referee-demo")]


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Serve a read-only web view of the game records under the given folders (default: "
        "./referee-games, ./referee-runs and ./referee-demo where they exist): a dashboard "
        "with the standings of every tournament in them (up to three folders down), and a "
        "replay of every game. Runs until Ctrl-C."
    )
    parser.add_argument("folders", nargs="*", type=Path, metavar="FOLDER", help="folders to serve")
    add_server_arguments(parser)
    parser.set_defaults(run=run_serve)


def run_serve(args: argparse.Namespace, out: Console, err: Console) -> int:
    # Deferred: the web stack (starlette, hypercorn) loads to serve, not to build the parser.
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
    # Deferred: the web stack (starlette, hypercorn) loads to serve, not to build the parser.
    from referee.web.server import start_web_server, wait_for_interrupt

    async with trio.open_nursery() as nursery:
        server = await start_web_server(nursery, folders, port, host=host)
        shown = ", ".join(str(f) for f in folders) or "no folders"
        err.print(f"serving {shown}", highlight=False)
        err.print(f"[bold]web view: {server.url}/[/bold]  (Ctrl-C to stop)", highlight=False)
        await wait_for_interrupt()
        nursery.cancel_scope.cancel()
    err.print("stopped")
