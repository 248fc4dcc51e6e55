"""Benchmark the arena's pages under load: a `referee arena serve` process on the loopback and
`--clients` browsing clients, each signed in as a student of its own (staff: one in 20),
opening a page, reading it whole, thinking, opening the next, while students upload bots
(`--uploads-per-minute`, each built and checked by the server) and the ladder plays its games.

The arena is made first (or reused with `--dir`): `--students` students, each with a few
versions (one active: a real tic-tac-toe bot in its folder, which the ladder plays while the
clients browse), `--games` finished games among the active versions (each with its record on
disk: `--records` distinct record files, shared round robin, so that the server's replay cache
is not the only thing read), a running and some pending games, a rating fit per version every
few hours over a week (the history the charts and trends read), a staff account, and the
accounts that upload (one upload each, by the API, as `referee arena submit` sends it).
Sessions are made in the store directly (no password hashing in the way). With `--no-games`
the ladder is paused (the staff's switch) and, with `--uploads-per-minute 0`, the server serves
pages alone: what a page itself costs.

Each client opens, in a random order weighted as people browse: the leaderboard, its own page,
its losses (with their final positions and stderr tails), a game (a random one it may see), that
game's record JSON, the list of games, the queue, and for staff the staff page and the audit
log. The time of a request is from sending it to the last byte of the answer. Printed: one line
per page and one overall (the pages, uploads apart), `key=value` fields: requests, errors (any
status but 200; for an upload, but 201), p50, p95 and p99 in ms, the server's CPU seconds over
the run and per request, its game workers' (with the bots they ended), the clients' own CPU,
the ladder's games the server finished during the run and the uploads checked and active by its
end, and the machine's load average (on a shared machine the times say more about the
neighbours than about the server; its CPU per request does not); then the same as a table for
docs/performance.md.

    python scripts/bench_arena_pages.py [--students 200] [--games 20000] [--clients 200]
        [--uploads-per-minute 50] [--seconds 60] [--think 5.0] [--dir /tmp/arena-bench] [--no-games]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx2
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_uploads import BOT  # the same small bot: its check is what an upload costs

from protocols import get_game
from protocols.base import Side
from referee.arena import accounts
from referee.arena.folder import new_arena, open_arena
from referee.arena.games import version_folder
from referee.arena.ratings import store_ratings
from referee.arena.roster import Person
from referee.arena.rows import Rating, Role
from referee.arena.sessions import SESSION_COOKIE, CookieSigner, start_session
from referee.arena.staff_actions import PAUSED, switch
from referee.arena.store import stamp, transaction
from referee.course.builds import content_hash
from referee.records import (
    BotReport,
    Header,
    PlayerInfo,
    Ply,
    Result,
    TimeControl,
    utc_now,
    write_lines,
)
from referee.tournament.layouts import guess_command
from referee.web.listen import KEEP_ALIVE_SECONDS

PAGES = {  # page -> weight: how often a browsing student opens it
    "leaderboard": 5,
    "student": 3,
    "losses": 1,
    "game": 3,
    "record": 2,
    "games": 2,
    "queue": 3,
}
STAFF_PAGES = {**PAGES, "staff": 2, "audit": 1}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def record(rng: random.Random, number: int) -> list[Header | Ply | Result]:
    """A random finished tic-tac-toe game with a stderr tail on each side."""
    game = get_game("tic-tac-toe")
    state = game.initial_state(game.parse_options({}))
    header = Header(
        game="tic-tac-toe",
        options={},
        seed=number,
        players={s: PlayerInfo(name=f"{s} bot", command="python3 bot.py") for s in Side},
        time_control=TimeControl(move_timeout=5, grace=0.5, startup_allowance=5),
        started_at=utc_now(),
    )
    lines: list[Header | Ply | Result] = [header]
    while game.outcome(state) is None:
        move = rng.choice(list(game.legal_moves(state)))
        text = game.format_move(move)
        lines.append(Ply(ply=len(lines), side=state.to_move, received=text, move=text, time_ms=2))
        state = game.apply(state, move)
    outcome = game.outcome(state)
    assert outcome is not None
    tail = "".join(f"thinking about move {i}\n" for i in range(40))
    report = BotReport(exit_code=0, killed=False, stderr_tail=tail, stderr_bytes=len(tail))
    result = Result.of_outcome(outcome, len(lines) - 1)
    return [*lines, result.model_copy(update={"bots": {s: report for s in Side}})]


UPLOADER = "u"  # the usernames of the accounts that upload: u0000, u0001, ...


@dataclass
class Made:
    students: list[int]
    staff: int
    games: int


def bot_folder(root: Path, version: int) -> tuple[str, str]:
    """Version `version`'s folder with the small bot in it, as the server would have built it
    (its files 644, its folder 755: the bots' users read it): its command and content hash."""
    folder = version_folder(root, version)
    folder.mkdir(mode=0o755)
    (folder / "bot.py").write_bytes(BOT)
    (folder / "bot.py").chmod(0o644)
    command = guess_command(folder).command
    assert command is not None
    return command, content_hash(folder)


def make(root: Path, students: int, games: int, records: int, seed: int = 1) -> Made:
    rng = random.Random(seed)
    new_arena(root, game="tic-tac-toe", name="Benchmark arena")
    arena = open_arena(root)
    db = arena.store.writer
    now = datetime.now(UTC)
    people = [Person(f"s{n:04d}", f"Student {n}", Role.STUDENT, None, n) for n in range(students)]
    people.append(Person("staff", "Staff Member", Role.STAFF, None, students))
    added = accounts.import_roster(db, people, now).added
    ids = [a.id for a in added if a.role is Role.STUDENT]
    staff = next(a.id for a in added if a.role is Role.STAFF)
    for number in range(records):
        write_lines(root / "games" / f"r{number}.jsonl", record(rng, number))
    active: list[int] = []
    with transaction(db):
        for account in ids:
            for number in range(1, rng.randint(1, 3) + 1):
                upload = db.execute(
                    "INSERT INTO uploads (sha256, size, name, account_id, received_at)"
                    " VALUES (?, 1, 'bot.py', ?, ?)",
                    ("0" * 64, account, stamp(now)),
                ).lastrowid
                version = db.execute(
                    "INSERT INTO versions (account_id, number, upload_id, status, created_at)"
                    " VALUES (?, ?, ?, 'superseded', ?)",
                    (account, number, upload, stamp(now)),
                ).lastrowid
            command, digest = bot_folder(root, int(version or 0))
            db.execute(
                "UPDATE versions SET status = 'active', command = ?, content_hash = ?,"
                " capabilities = '[]', checked_at = ?, activated_at = ? WHERE id = ?",
                (command, digest, stamp(now), stamp(now), version),
            )
            active.append(int(version or 0))
        start = now - timedelta(days=7)
        for number in range(games):
            blue, orange = rng.sample(active, 2)
            winner = rng.choice(["blue", "orange", None])
            at = stamp(start + timedelta(seconds=number * 7 * 86400 / games))
            db.execute(
                "INSERT INTO games (kind, blue, orange, seed, state, record, winner, reason,"
                " plies, created_at, started_at, finished_at)"
                " VALUES ('ladder', ?, ?, ?, 'done', ?, ?, 'game-ending', 7, ?, ?, ?)",
                (blue, orange, number, f"games/r{number % records}.jsonl", winner, at, at, at),
            )
        for state in ["running"] * 4 + ["pending"] * 40:
            blue, orange = rng.sample(active, 2)
            db.execute(
                "INSERT INTO games (kind, blue, orange, seed, state, created_at)"
                " VALUES ('ladder', ?, ?, 1, ?, ?)",
                (blue, orange, state, stamp(now)),
            )
    ratings = {version: 1500.0 for version in active}
    for fit_number, hours in enumerate(range(0, 7 * 24, 6)):  # a fit every six hours, a week
        at = stamp(now - timedelta(hours=7 * 24 - hours))
        for version in active:
            ratings[version] += rng.gauss(0, 15)
        ranked = sorted(active, key=lambda v: -ratings[v])
        # The ratings' own writer, as the ladder's fit: it adds a history row for a version
        # whose games changed since the fit before, so each fit here has more games.
        store_ratings(
            db,
            [
                Rating(version, ratings[version], ratings[version] - 60, ratings[version] + 60,
                       10 + fit_number, 5.0 + fit_number / 2, "", rank, at)
                for rank, version in enumerate(ranked, start=1)
            ],
        )  # fmt: skip
    arena.close()
    return Made(ids, staff, games)


def cookies(root: Path, people: list[int]) -> dict[int, str]:
    arena = open_arena(root)
    signer = CookieSigner(arena.secret)
    found = {}
    for account in people:
        session = start_session(arena.store.writer, account, utc_now(), timedelta(hours=12))
        found[account] = signer.session_cookie(session)
    arena.close()
    return found


def pause_ladder(root: Path, paused: bool) -> None:
    """Pause the ladder (the staff's switch) for a run that measures the pages alone, or
    resume it."""
    arena = open_arena(root)
    try:
        switch(arena.store.writer, datetime.now(UTC), None, PAUSED, paused)
    finally:
        arena.close()


def upload_tokens(root: Path, count: int) -> list[str]:
    """`count` new accounts that upload (after those of earlier runs of a reused arena), each
    with its API token."""
    arena = open_arena(root)
    try:
        db = arena.store.writer
        (before,) = db.execute(
            "SELECT count(*) FROM accounts WHERE username LIKE ?", (f"{UPLOADER}%",)
        ).fetchone()
        people = [
            Person(f"{UPLOADER}{n:04d}", f"Uploader {n}", Role.STUDENT, None, n)
            for n in range(before, before + count)
        ]
        added = accounts.import_roster(db, people, datetime.now(UTC)).added
        return [accounts.rotate_token(db, a.id) for a in added]
    finally:
        arena.close()


def address(page: str, account: int, made: Made, rng: random.Random) -> str:
    game = rng.randint(1, made.games)
    student = account if account in made.students else rng.choice(made.students)
    return {
        "leaderboard": "/leaderboard",
        "student": f"/students/{student}",
        "losses": f"/students/{student}/losses",
        "game": f"/games/{game}",
        "record": f"/games/{game}/record.json",
        "games": "/games",
        "queue": "/queue",
        "staff": "/staff",
        "audit": "/staff/audit",
    }[page]


async def browse(
    client: httpx2.AsyncClient,
    account: int,
    cookie: str,
    staff: bool,
    made: Made,
    until: float,
    think: float,
    times: dict[str, list[float]],
    errors: dict[str, int],
    seed: int,
) -> None:
    """One person browsing: a page, read whole, a pause, the next page."""
    rng = random.Random(seed)
    weights = STAFF_PAGES if staff else PAGES
    names, chances = list(weights), list(weights.values())
    headers = {"Cookie": f"{SESSION_COOKIE}={cookie}"}
    await trio.sleep(rng.uniform(0, think))  # the clients do not all start at once
    while time.monotonic() < until:
        page = rng.choices(names, chances)[0]
        started = time.perf_counter()
        target = address(page, account, made, rng)
        for attempt in (1, 2):
            try:
                response = await client.get(target, headers=headers)
                await response.aread()
                ok = response.status_code == 200
                what = str(response.status_code)
                break
            except httpx2.RemoteProtocolError as exc:
                # A kept-alive connection the server closed (idle 5 s) as it was reused: a
                # browser asks again on a new one, and so does this client, once.
                ok, what = False, type(exc).__name__
                errors["retried"] += attempt == 1
            except httpx2.HTTPError as exc:
                ok, what = False, type(exc).__name__
                break
        times[page].append(time.perf_counter() - started)
        if not ok:
            errors[page] += 1
            errors[f"{page} {what}"] += 1
        await trio.sleep(rng.expovariate(1 / think))


async def uploading(
    client: httpx2.AsyncClient,
    tokens: list[str],
    per_minute: float,
    until: float,
    times: dict[str, list[float]],
    errors: dict[str, int],
) -> None:
    """One upload every 60 / `per_minute` seconds whatever the answers' times (each its own
    task: people do not wait for each other), each by an account of its own."""
    every = 60 / per_minute
    due = time.monotonic() + every / 2
    async with trio.open_nursery() as nursery:
        for token in tokens:
            await trio.sleep(max(0.0, due - time.monotonic()))
            if time.monotonic() >= until:
                return
            nursery.start_soon(upload, client, token, times, errors)
            due += every


async def upload(
    client: httpx2.AsyncClient, token: str, times: dict[str, list[float]], errors: dict[str, int]
) -> None:
    """One upload of the small bot, as `referee arena submit` sends it; timed to its answer
    (the check runs on after it)."""
    started = time.perf_counter()
    try:
        response = await client.post(
            "/api/versions",
            params={"name": "bot.py"},
            content=BOT,
            headers={"Authorization": f"Bearer {token}"},
        )
        what = str(response.status_code)
    except httpx2.HTTPError as exc:
        what = type(exc).__name__
    times["upload"].append(time.perf_counter() - started)
    if what != "201":
        errors["upload"] += 1
        errors[f"upload {what}"] += 1


def played(root: Path, since: str) -> tuple[int, int, int]:
    """Since `since`: the ladder's games finished, the uploads' versions checked, and those
    of them that became active (the rest failed, or wait for their check)."""
    with sqlite3.connect(f"file:{root / 'arena.sqlite'}?mode=ro", uri=True) as db:
        (games,) = db.execute(
            "SELECT count(*) FROM games WHERE state = 'done' AND finished_at >= ?", (since,)
        ).fetchone()
        checked, active = db.execute(
            "SELECT count(checked_at), count(activated_at) FROM versions v"
            " JOIN accounts a ON a.id = v.account_id WHERE a.username LIKE ?"
            " AND v.created_at >= ?",
            (f"{UPLOADER}%", since),
        ).fetchone()
    return int(games), int(checked), int(active)


def table(times: dict[str, list[float]], errors: dict[str, int]) -> list[str]:
    """The figures as a table for docs/performance.md."""
    lines = [
        "| request | count | errors | p50 ms | p95 ms | p99 ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    pages = [t for page, values in times.items() if page != "upload" for t in values]
    rows = [*sorted(p for p in times if p != "upload"), "all pages", "upload"]
    for name in rows:
        values = pages if name == "all pages" else times.get(name, [])
        if not values:
            continue
        wrong = (
            sum(errors[p] for p in times if p != "upload") if name == "all pages" else errors[name]
        )
        lines.append(
            f"| {name} | {len(values)} | {wrong} | {statistics.median(values) * 1000:.0f}"
            f" | {percentile(values, 0.95):.0f} | {percentile(values, 0.99):.0f} |"
        )
    return lines


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def game_workers(pid: int) -> list[int]:
    """The server's game workers (its children running `referee.arena.play_worker`)."""
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children += [int(c) for c in (task / "children").read_text().split()]
    return [c for c in children if b"referee.arena.play_worker" in cmdline(c)]


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def workers_cpu(pids: list[int]) -> float:
    """The CPU seconds of the game workers still running (and of the bots they waited for)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def line(name: str, values: list[float], errors: int) -> str:
    return (
        f"page={name} requests={len(values)} errors={errors}"
        f" p50_ms={statistics.median(values) * 1000:.1f} p95_ms={percentile(values, 0.95):.1f}"
        f" p99_ms={percentile(values, 0.99):.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--uploads-per-minute", type=float, default=50.0, help="0: no uploads")
    parser.add_argument("--think", type=float, default=5.0, help="mean seconds between pages")
    parser.add_argument("--dir", type=Path, default=None, help="make (or reuse) the arena here")
    parser.add_argument(
        "--no-games", action="store_true", help="the ladder paused: the pages' own cost"
    )
    args = parser.parse_args()
    root = args.dir or Path("/tmp") / f"arena-bench-{os.getpid()}"
    if not (root / "arena.toml").exists():
        made_at = time.perf_counter()
        made = make(root, args.students, args.games, args.records)
        print(f"made={root} seconds={time.perf_counter() - made_at:.1f}", flush=True)
    else:
        arena = open_arena(root)
        db = arena.store.reader
        students = [r[0] for r in db.execute("SELECT id FROM accounts WHERE role = 'student'")]
        staff = db.execute("SELECT id FROM accounts WHERE role = 'staff'").fetchone()[0]
        games = db.execute("SELECT count(*) FROM games WHERE state = 'done'").fetchone()[0]
        arena.close()
        made = Made(students, staff, games)
    uploads = math.ceil(args.uploads_per_minute * args.seconds / 60)
    tokens = upload_tokens(root, uploads) if uploads else []
    pause_ladder(root, args.no_games)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "referee", "arena", "serve", str(root), "--port", str(port)],
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                httpx2.get(f"{url}/login", timeout=1)
                break
            except httpx2.HTTPError:
                time.sleep(0.1)
        viewers = [
            (made.staff if n % 20 == 19 else made.students[n % len(made.students)])
            for n in range(args.clients)
        ]
        signed = cookies(root, sorted({*viewers, made.staff}))
        # One of each page first: the server compiles its templates and loads its modules on
        # their first use, which is no part of browsing.
        warm = {SESSION_COOKIE: signed[made.staff]}
        for page in STAFF_PAGES:
            httpx2.get(url + address(page, made.staff, made, random.Random(0)), cookies=warm)
        times: dict[str, list[float]] = defaultdict(list)
        errors: dict[str, int] = defaultdict(int)
        cpu_before = cpu_seconds(server.pid)
        workers = game_workers(server.pid)
        workers_before = workers_cpu(workers)

        since = stamp(datetime.now(UTC))

        async def run() -> None:
            # One client for all (its own connection for each person at most): what is timed
            # is the server, not the making of 200 clients.
            # A connection idle for the server's whole keep-alive time is let go first here,
            # as browsers do, rather than reused as the server closes it.
            pool = httpx2.Limits(
                max_connections=args.clients,
                max_keepalive_connections=args.clients,
                keepalive_expiry=KEEP_ALIVE_SECONDS / 2,
            )
            async with httpx2.AsyncClient(base_url=url, limits=pool, timeout=60) as client:
                until = time.monotonic() + args.seconds
                async with trio.open_nursery() as nursery:
                    if tokens:
                        nursery.start_soon(
                            uploading, client, tokens, args.uploads_per_minute, until, times,
                            errors,
                        )  # fmt: skip
                    for n, viewer in enumerate(viewers):
                        nursery.start_soon(
                            browse, client, viewer, signed[viewer], viewer == made.staff, made,
                            until, args.think, times, errors, n,
                        )  # fmt: skip

        client_before = time.process_time()
        trio.run(run)
        cpu = cpu_seconds(server.pid) - cpu_before
        ladder_cpu = workers_cpu(workers) - workers_before
        client_cpu = time.process_time() - client_before
        # What the server did meanwhile, read once it has had a moment to commit the checks
        # already under way (not waited for: an upload's check is not a page).
        games, checked, active = played(root, since)
    finally:
        server.terminate()
        server.wait(30)
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)
    for page in sorted(times):
        print(line(page, times[page], errors[page]))
    print(f"retried={errors['retried']}")
    for kind in sorted(k for k in errors if " " in k):
        print(f"error={kind.replace(' ', ':')} count={errors[kind]}")
    every = [t for page, values in times.items() if page != "upload" for t in values]
    asked = len(every) + len(times["upload"])
    load = os.getloadavg()[0]
    print(
        f"{line('all', every, sum(errors[p] for p in times if p != 'upload'))}"
        f" clients={args.clients} seconds={args.seconds:g} think_s={args.think:g}"
        f" rps={len(every) / args.seconds:.0f} uploads={len(times['upload'])}"
        f" uploads_checked={checked} uploads_active={active} games_finished={games}"
        f" games_per_min={games * 60 / args.seconds:.0f} server_cpu_s={cpu:.1f}"
        f" workers_cpu_s={ladder_cpu:.1f}"
        f" server_cpu_ms_per_request={cpu / max(asked, 1) * 1000:.1f}"
        f" client_cpu_s={client_cpu:.1f} load_average={load:.1f}"
    )
    print()
    print("\n".join(table(times, errors)))
    print()
    print(
        f"{args.clients} clients (think {args.think:g} s), {len(times['upload'])} uploads in"
        f" {args.seconds:g} s ({checked} checked, {active} active by the end),"
        f" {games} games finished meanwhile; the server's CPU {cpu / max(asked, 1) * 1000:.1f}"
        f" ms a request; load average {load:.1f}."
    )


if __name__ == "__main__":
    main()
