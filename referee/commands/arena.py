"""`referee arena new|accounts|serve|invite|token|disable|submit|final|grades`: the term-long
server (docs/arena.md).

`new` makes an arena's folder (from a course's settings with `--from`), `accounts` imports a
roster and prints each new account's invite link (or initial password) once, `serve` serves the
pages until Ctrl-C, `invite` and `token` give one account a new invite link, password or API
token, `disable` shuts an account out (`--enable` lets it back). `final` pins the students'
versions (after the deadline, or `--now`), plays the final in DIR/final (resuming it) and works
out its grades; `grades` works them out again, writes DIR/grades.csv, and `--release` shows
them to the students. Credentials go to stdout as CSV, for a mail merge; everything else to
stderr. Exit codes: 0 done, 2 a usage, config or roster error (or, for `final` and `grades`,
what stops them); `final` as `referee tournament run`: 3 games left void, 130 interrupted.

`serve` also plays the ladder's games, here or on a Dask cluster (`--cluster ADDRESS`).

`submit` is the students' command: it uploads a file or a folder with their API token and,
with `--wait`, prints the check's result. Exit codes: 0 uploaded (with `--wait`: active), 1
the version is late, failed or still waiting at `--timeout`, 2 the upload failed.
"""

from __future__ import annotations

import argparse
import csv
import io
import shlex
import sqlite3
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import trio
from rich.console import Console

from referee.app.tournament_session import SessionSettings, exit_code, play_tournament
from referee.arena import accounts
from referee.arena.audit import note
from referee.arena.deadline import past_deadline
from referee.arena.final import FinalError, prepare_final
from referee.arena.finalists import entries, pin, pinned_at, waiting_checks
from referee.arena.folder import Arena, ArenaError, new_arena, open_arena, serving_lock
from referee.arena.grades import (
    CSV_NAME,
    GradesError,
    export,
    final_grades,
    release,
    released,
    save,
)
from referee.arena.roster import RosterError, read_roster
from referee.arena.rows import Account
from referee.arena.store import StoreError, transaction
from referee.arena.submit import (
    TOKEN_VARIABLE,
    ArenaClient,
    SubmitError,
    describe,
    read_token,
    unencrypted,
    wait_for,
    what_to_send,
)
from referee.commands import EXIT_OK, EXIT_USAGE
from referee.isolation import describe as describe_isolation
from referee.printable import csv_cell, printable
from referee.records import utc_now
from referee.views.session_lines import terminal_observers
from referee.web import check_address

if TYPE_CHECKING:
    from referee.arena.ladder import LadderSetup

EXIT_LATE_OR_FAILED = 1


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
    submit = sub.add_parser("submit", help="upload a bot (a file or a folder) as a new version")
    submit.add_argument("url", help="the arena's address, e.g. https://arena.example.edu")
    submit.add_argument("path", type=Path, help="a file, or a folder (sent as a .tar.gz)")
    submit.add_argument(
        "--token-file", type=Path, default=None,
        help=f"a file holding your API token (default: ${TOKEN_VARIABLE})",
    )  # fmt: skip
    submit.add_argument("--wait", action="store_true", help="wait for its check; print it")
    submit.add_argument("--timeout", type=float, default=600.0, help="most seconds to wait (600)")
    submit.set_defaults(run=run_submit)
    final = sub.add_parser("final", help="pin the versions, play (or resume) the final, grade it")
    final.add_argument("folder", type=Path)
    final.add_argument(
        "--now", action="store_true",
        help="pin the versions now: before the deadline (uploads close), without waiting for "
        "the checks of versions uploaded in time",
    )  # fmt: skip
    final.add_argument("-j", "--concurrency", type=int, default=None, help="games at once")
    final.add_argument("-q", "--quiet", action="store_true", help="no live display")
    final.set_defaults(run=run_final)
    grades = sub.add_parser("grades", help="the final's grades: kept, and written to grades.csv")
    grades.add_argument("folder", type=Path)
    shown = grades.add_mutually_exclusive_group()
    shown.add_argument("--release", action="store_true", help="then show each student theirs")
    shown.add_argument("--hide", action="store_true", help="then hide them from the students")
    grades.set_defaults(run=run_grades)


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
        folder = shlex.quote(str(args.folder))
        err.print(
            f"next: set `[server] url` in {shlex.quote(str(Path(args.folder) / 'arena.toml'))} "
            f"(the invite links use it), then `referee arena accounts {folder} ROSTER.csv`, "
            f"then `referee arena serve {folder}`",
            highlight=False,
            markup=False,
        )
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
        # A mail merge opens this in a spreadsheet: a roster's text is made safe as grades.csv's.
        person = [csv_cell(account.username), csv_cell(account.display_name), account.email or ""]
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
        if ladder.host is not None:
            err.print(describe_isolation(ladder.host.isolation), markup=False, highlight=False)
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


def run_submit(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        token = read_token(args.token_file)
        client = ArenaClient(args.url, token)
        name, data, packed = what_to_send(args.path)
    except SubmitError as exc:
        return _fail(err, str(exc).replace("[", "\\["))
    if unencrypted(client.url):
        err.print("warning: http:// sends your token unencrypted", highlight=False)
    if packed is not None:
        files = f"{packed.files} file{'' if packed.files == 1 else 's'}"
        said = f"packed {args.path} as {name}: {files}, {len(data):,} bytes"
        err.print(printable(said), markup=False, highlight=False)
        for skipped in packed.left_out:
            err.print(printable(f"  left out {skipped}"), markup=False, highlight=False)
    try:
        version = client.upload(name, data)
        shown = printable(f"uploaded as v{version['number']}: {version['url']}")
        out.print(shown, markup=False, highlight=False)
        if version["late"]:
            err.print(printable(version["describe"]), markup=False, highlight=False)
            return EXIT_LATE_OR_FAILED
        if not args.wait:
            return EXIT_OK
        status = partial(_status, err)
        final = wait_for(client, version["id"], timeout=args.timeout, on_status=status)
    except SubmitError as exc:
        return _fail(err, str(exc).replace("[", "\\["))
    if final is None:
        waiting = f"still being checked after {args.timeout:g} s: see {version['url']}"
        err.print(printable(waiting), markup=False, highlight=False)
        return EXIT_LATE_OR_FAILED
    for line in describe(final):
        out.print(line, markup=False, highlight=False, soft_wrap=True)
    return EXIT_OK if final["status"] == "active" else EXIT_LATE_OR_FAILED


def _status(err: Console, status: str) -> None:
    err.print(printable(f"  {status}"), markup=False, highlight=False)


def run_final(args: argparse.Namespace, out: Console, err: Console) -> int:
    if args.concurrency is not None and args.concurrency < 1:
        return _fail(err, "--concurrency must be at least 1")

    def work(arena: Arena) -> int:
        db = arena.store.writer
        if pinned_at(db) is None:
            if refusal := _pin_refusal(arena, args.now):
                return _refuse(err, refusal)
            pin(db, utc_now(), None)
        try:
            loaded = prepare_final(arena)
        except FinalError as exc:
            return _refuse(err, str(exc))
        _say(err, f"the final: {loaded.path}")
        settings = SessionSettings(
            concurrency=args.concurrency,
            allow_broken=True,  # a version that cannot start loses its games; the rest play
            resume_hint=f"run `referee arena final {args.folder}` again to resume",
        )
        observers = terminal_observers(err, loaded.config.name, quiet=args.quiet)
        finished = play_tournament(loaded, observers, settings)
        if finished is None:
            return EXIT_USAGE
        if finished.complete and not finished.void:
            _grade(arena, err)
        elif finished.void:
            _say(
                err,
                f"{finished.void} games of the final are void for good: `referee tournament "
                f"results {loaded.directory} --games` says why; `referee arena grades "
                f"{args.folder}` grades without them",
            )
        return exit_code(finished)

    return _opened(args.folder, work, err)


def _pin_refusal(arena: Arena, now_asked: bool) -> str | None:
    """Why the versions cannot be pinned yet without `--now`, or None."""
    if now_asked:
        return None
    at = arena.config.deadline.at
    if at is None or not past_deadline(arena.config, utc_now()):
        when = "arena.toml sets no deadline" if at is None else f"the deadline is {at}"
        return (
            f"{when}, and uploads are open until then: `--now` pins the students' versions now "
            "and closes uploads"
        )
    db = arena.store.writer
    if waiting := waiting_checks(db):
        owners = {v.account_id: accounts.by_id(db, v.account_id) for v in waiting}
        listed = ", ".join(
            f"{owner.username if (owner := owners[v.account_id]) else '?'}'s version {v.number}"
            for v in waiting
        )
        return (
            f"{len(waiting)} versions uploaded in time are still being built or checked "
            f"({listed}): `referee arena serve` checks them, then pins them at once; `--now` "
            "pins the versions without them"
        )
    return None


def _grade(arena: Arena, err: Console) -> bool:
    """Work out and keep the final's grades; False (said) when they cannot be."""
    now = utc_now()
    db = arena.store.writer
    try:
        worked = final_grades(arena, entries(db), now)
    except GradesError as exc:
        _refuse(err, str(exc))
        return False
    save(db, worked, now, None)
    state = "released: each student sees theirs" if released(db) else "hidden until released"
    _say(err, f"the grades of {len(worked.grades)} students are kept, {state}")
    if worked.void:
        _say(err, f"{worked.void} void games of the final are not counted")
    return True


def run_grades(args: argparse.Namespace, out: Console, err: Console) -> int:
    def work(arena: Arena) -> int:
        if not _grade(arena, err):
            return EXIT_USAGE
        if args.release or args.hide:
            release(arena.store.writer, utc_now(), None, released=args.release)
            _say(err, "released: each student sees theirs" if args.release else "hidden")
        try:
            _say(err, f"wrote {export(arena)}")
        except OSError as exc:
            return _refuse(err, f"cannot write {arena.paths.root / CSV_NAME}: {exc}")
        return EXIT_OK

    return _opened(args.folder, work, err)


def _refuse(err: Console, text: str) -> int:
    """`_fail` with a message that may hold brackets (a config's `[final]`, a path)."""
    return _fail(err, text.replace("[", "\\["))


def _say(err: Console, text: str) -> None:
    err.print(text, markup=False, highlight=False, soft_wrap=True)
