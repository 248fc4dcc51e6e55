"""`referee arena new|accounts|serve|invite|token|disable`: the term-long server (docs/arena.md).

`new` makes an arena's folder (from a course's settings with `--from`), `accounts` imports a
roster and prints each new account's invite link (or initial password) once, `serve` serves the
pages until Ctrl-C, `invite` and `token` give one account a new invite link, password or API
token, `disable` shuts an account out (`--enable` lets it back). Credentials go to stdout as
CSV, for a mail merge; everything else to stderr. Exit codes: 0 done, 2 a usage, config or
roster error.

`serve` also plays the ladder's games, here or on a Dask cluster (`--cluster ADDRESS`).
"""

from __future__ import annotations

import argparse
import csv
import io
import sqlite3
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import trio
from rich.console import Console

from referee.arena import accounts
from referee.arena.audit import note
from referee.arena.folder import Arena, ArenaError, new_arena, open_arena, serving_lock
from referee.arena.roster import RosterError, read_roster
from referee.arena.rows import Account
from referee.arena.store import StoreError, transaction
from referee.commands import EXIT_OK, EXIT_USAGE
from referee.isolation import describe
from referee.records import utc_now
from referee.web import check_address

if TYPE_CHECKING:
    from referee.arena.ladder import LadderSetup


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = "The arena: a course's server for the whole term (docs/arena.md)."
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    new = sub.add_parser("new", help="make an arena: arena.toml, its store, its key")
    new.add_argument("folder", type=Path)
    new.add_argument("--from", dest="course", type=Path, help="a course's course.toml to reuse")
    new.add_argument("-g", "--game", default=None, help="the game (lasker-morris)")
    new.add_argument("--name", default=None, help="the arena's name (default: the folder's)")
    new.add_argument("--roster", type=Path, default=None, help="import this roster too")
    _credential_choice(new)
    new.set_defaults(run=run_new)
    roster = sub.add_parser("accounts", help="import a roster; print each new account's invite")
    roster.add_argument("folder", type=Path)
    roster.add_argument("roster", type=Path, nargs="?", help="default: arena.toml's [roster]")
    _credential_choice(roster)
    roster.set_defaults(run=run_accounts)
    serve = sub.add_parser("serve", help="serve the arena until Ctrl-C")
    serve.add_argument("folder", type=Path)
    serve.add_argument("--port", type=int, default=None, help="default: arena.toml's (8000)")
    serve.add_argument("--host", default=None, help="address to listen on (arena.toml's)")
    serve.add_argument(
        "--allowed-host", action="append", default=[], metavar="NAME",
        help="another host name people reach the arena by (repeatable)",
    )  # fmt: skip
    serve.add_argument(
        "--cluster", default=None, metavar="ADDRESS",
        help="play the games on a Dask cluster: local:N or a scheduler's HOST:PORT",
    )  # fmt: skip
    serve.set_defaults(run=run_serve)
    invite = sub.add_parser("invite", help="a new invite link (or password) for an account")
    invite.add_argument("folder", type=Path)
    invite.add_argument("username")
    _credential_choice(invite)
    invite.set_defaults(run=run_invite)
    token = sub.add_parser("token", help="a new API token for an account (the old one ends)")
    token.add_argument("folder", type=Path)
    token.add_argument("username")
    token.set_defaults(run=run_token)
    disable = sub.add_parser("disable", help="shut an account out (its sessions end)")
    disable.add_argument("folder", type=Path)
    disable.add_argument("username")
    disable.add_argument("--enable", action="store_true", help="let it back in instead")
    disable.set_defaults(run=run_disable)


def _credential_choice(parser: argparse.ArgumentParser) -> None:
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument(
        "--invites", dest="passwords", action="store_false",
        help="an invite link per new account, to set a password (the default)",
    )  # fmt: skip
    choice.add_argument(
        "--passwords", dest="passwords", action="store_true",
        help="an initial password per new account instead",
    )  # fmt: skip
    parser.set_defaults(passwords=False)


def _fail(err: Console, message: str) -> int:
    err.print(f"[red]referee arena: {message}[/red]", highlight=False, markup=True)
    return EXIT_USAGE


def _opened(folder: Path, work: Callable[[Arena], int], err: Console) -> int:
    """Run `work` on the opened arena; its errors as one plain message."""
    try:
        arena = open_arena(folder)
    except (ArenaError, StoreError) as exc:
        return _fail(err, str(exc).replace("[", "\\["))
    try:
        return work(arena)
    except (ArenaError, StoreError, RosterError, sqlite3.Error) as exc:
        return _fail(err, str(exc).replace("[", "\\["))
    finally:
        arena.close()


def run_new(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        written = new_arena(
            args.folder, from_course=args.course, game=args.game, name=args.name, roster=args.roster
        )
    except ArenaError as exc:
        return _fail(err, str(exc).replace("[", "\\["))
    for path in written:
        err.print(f"wrote {path}", highlight=False, markup=False)
    if args.roster is None:
        err.print("next: `referee arena accounts DIR ROSTER.csv`, then `referee arena serve DIR`")
        return EXIT_OK
    return _opened(args.folder, lambda arena: _import(arena, args.roster, args, out, err), err)


def run_accounts(args: argparse.Namespace, out: Console, err: Console) -> int:
    def work(arena: Arena) -> int:
        roster = args.roster or arena.path(arena.config.roster.file)
        return _import(arena, roster, args, out, err)

    return _opened(args.folder, work, err)


def _import(
    arena: Arena, roster: Path, args: argparse.Namespace, out: Console, err: Console
) -> int:
    people = read_roster(roster)
    now = utc_now()
    done = accounts.import_roster(arena.store.writer, people, now)
    for line in done.notes:
        err.print(f"{roster}: {line}", highlight=False, markup=False)
    err.print(
        f"{roster}: {len(done.added)} accounts added, {len(done.unchanged)} already there",
        highlight=False,
        markup=False,
    )
    _print_credentials(arena, done.added, args.passwords, now, out)
    return EXIT_OK


def _print_credentials(
    arena: Arena, added: list[Account], passwords: bool, now: datetime, out: Console
) -> None:
    """Each account's invite link or initial password, as CSV on stdout: shown this once."""
    if not added:
        return
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    days = arena.config.accounts.invite_days
    url = arena.config.public_url()
    db = arena.store.writer
    if passwords:
        writer.writerow(["username", "name", "email", "password"])
    else:
        writer.writerow(["username", "name", "email", "invite", "expires"])
    for account in added:
        person = [account.username, account.display_name, account.email or ""]
        if passwords:
            writer.writerow([*person, accounts.issue_password(db, account.id)])
        else:
            token = accounts.issue_invite(db, account.id, now, days)
            expires = accounts.by_id(db, account.id)
            writer.writerow(
                [*person, f"{url}/invite/{token}", expires.invite_expires if expires else ""]
            )
    with transaction(db):
        what = "issue-passwords" if passwords else "issue-invites"
        note(db, now, None, what, ", ".join(a.username for a in added))
    out.print(buffer.getvalue(), end="", markup=False, highlight=False, soft_wrap=True)


def _account(arena: Arena, username: str) -> Account:
    account = accounts.by_username(arena.store.writer, username)
    if account is None:
        raise ArenaError(f"no account {username!r} in {arena.paths.root}")
    return account


def run_invite(args: argparse.Namespace, out: Console, err: Console) -> int:
    def work(arena: Arena) -> int:
        account = _account(arena, args.username)
        _print_credentials(arena, [account], args.passwords, utc_now(), out)
        return EXIT_OK

    return _opened(args.folder, work, err)


def run_token(args: argparse.Namespace, out: Console, err: Console) -> int:
    def work(arena: Arena) -> int:
        account = _account(arena, args.username)
        db = arena.store.writer
        token = accounts.rotate_token(db, account.id)
        with transaction(db):
            note(db, utc_now(), None, "new-token", account.username)
        out.print(token, markup=False, highlight=False, soft_wrap=True)
        err.print(f"a new API token for {account.username} (the old one no longer works)")
        return EXIT_OK

    return _opened(args.folder, work, err)


def run_disable(args: argparse.Namespace, out: Console, err: Console) -> int:
    def work(arena: Arena) -> int:
        account = _account(arena, args.username)
        accounts.set_disabled(arena.store.writer, account.id, not args.enable, utc_now(), None)
        state = "enabled" if args.enable else "disabled: its sessions ended"
        err.print(f"{account.username} {state}", highlight=False, markup=False)
        return EXIT_OK

    return _opened(args.folder, work, err)


def run_serve(args: argparse.Namespace, out: Console, err: Console) -> int:
    def work(arena: Arena) -> int:
        server = arena.config.server
        host = args.host or server.host
        try:
            port = check_address(host, server.port if args.port is None else args.port)
        except ValueError as exc:
            return _fail(err, str(exc))
        # The address people open follows --host and --port (unless arena.toml names one).
        settings = server.model_copy(update={"host": host, "port": port})
        arena.config = arena.config.model_copy(update={"server": settings})
        # Deferred: the ladder (the match, the rating fit's numpy) loads to serve alone.
        from referee.arena.ladder import ladder_setup

        # Where the games are played, chosen before anything starts: a machine that cannot
        # give the isolation arena.toml asks for stops here, saying why.
        ladder = ladder_setup(arena, args.cluster)
        if ladder.isolation is not None:
            err.print(describe(ladder.isolation), markup=False, highlight=False)
        failed: list[str] = []
        with serving_lock(arena):
            try:
                trio.run(_serve_until_interrupted, arena, args.allowed_host, ladder, err)
            except* ArenaError as group:
                failed = [str(e) for e in group.exceptions]
        if failed:
            return _fail(err, "; ".join(failed).replace("[", "\\["))
        err.print("stopped")
        return EXIT_OK

    return _opened(args.folder, work, err)


async def _serve_until_interrupted(
    arena: Arena, hosts: list[str], ladder: LadderSetup, err: Console
) -> None:
    # Deferred: the web stack (starlette, jinja2, hypercorn) loads to serve, not for the others.
    from referee.arena.server import serve_arena
    from referee.web.server import wait_for_interrupt

    server = arena.config.server
    async with trio.open_nursery() as nursery:
        serving = await nursery.start(
            partial(
                serve_arena, arena, host=server.host, port=server.port, extra_hosts=hosts,
                ladder=ladder,
            )
        )  # fmt: skip
        err.print(f"serving {arena.paths.root} on {', '.join(serving.binds)}", highlight=False)
        err.print(f"[bold]the arena: {serving.url}/[/bold]  (Ctrl-C to stop)", highlight=False)
        await wait_for_interrupt()
        nursery.cancel_scope.cancel()
