"""Benchmark the arena (docs/performance.md, "The arena's ladder"). Each part prints one line of
`key=value` fields per case:

    scheduler   the scheduler's cost per game at 50, 200 and 1000 active versions in mid-term
                (every version placed and rated, each having met 40 others, owed meetings and a
                deadline in 30 days): the pure `next_meetings` filling 8 slots (us_per_game),
                and the store's snapshot it is given, read from a store of that ladder with 50
                games a version (snapshot_ms)
    ratings     one fit of the ladder's ratings (read, fit, store) over the same stores
    games       games per minute of instant bots (the built-in random bot, tic-tac-toe) through
                `referee arena serve` and through `referee tournament run` on this machine: the
                same bots, the same number of games at once, each from its process's start to
                its last game (per_min) and between its first and last game (steady_per_min);
                `ratio` is the arena's over the tournament's (the target: at least 0.8)

Usage:
    python scripts/bench_arena.py [--parts scheduler,ratings,games] [--versions 50 200 1000]
                                  [--games 60] [--concurrency 2] [--bots 8] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from referee.arena import accounts
from referee.arena.config import ScheduleSettings
from referee.arena.folder import Arena, new_arena, open_arena
from referee.arena.ladder_store import schedule_snapshot
from referee.arena.ratings import fit, rating_data, store_ratings
from referee.arena.roster import Person
from referee.arena.rows import Role
from referee.arena.scheduler import Entrant, Snapshot, next_meetings, pair
from referee.arena.store import stamp, transaction

NOW = datetime(2026, 10, 15, 12, 0, tzinfo=UTC)
SLOTS = 8
MET = 40  # partners each version has met, mid-term


def ladder(n: int, seed: int = 1) -> Snapshot:
    """A ladder of `n` placed, rated versions in mid-term."""
    rng = random.Random(seed)
    entrants = tuple(
        Entrant(v, rng.gauss(1500, 200), rng.randint(60, 140), rng.randint(0, 20),
                rng.uniform(24, 1000))
        for v in range(1, n + 1)
    )  # fmt: skip
    met: dict[tuple[int, int], int] = {}
    for v in range(1, n + 1):
        for w in rng.sample(range(1, n + 1), min(MET, n - 1) + 1):
            if w != v:
                met[pair(v, w)] = rng.randint(1, 3)
    return Snapshot(
        entrants,
        ScheduleSettings(),
        concurrency=SLOTS,
        met=met,
        time_left=30 * 86400.0,
        game_seconds=30.0,
    )


def bench_scheduler(n: int, runs: int) -> dict[str, float]:
    snap = ladder(n)
    calls = max(20, 20_000 // n)
    per_game, cpu = [], []
    for _ in range(runs):
        start, used, games = time.perf_counter(), time.process_time(), 0
        for draw in range(calls):
            games += 2 * len(next_meetings(Snapshot(
                snap.entrants, snap.settings, snap.concurrency, met=snap.met,
                time_left=snap.time_left, game_seconds=snap.game_seconds, draw=draw,
            )))  # fmt: skip
        per_game.append((time.perf_counter() - start) / games * 1e6)
        cpu.append((time.process_time() - used) / games * 1e6)
    return {"us_per_game": statistics.median(per_game), "cpu_us_per_game": statistics.median(cpu)}


def ladder_store(folder: Path, n: int, per_version: int = 50) -> Arena:
    """An arena of `n` active versions and `per_version` * n / 2 finished games among them."""
    root = folder / f"arena-{n}"
    new_arena(root, game="tic-tac-toe", name=f"bench {n}")
    arena = open_arena(root)
    db = arena.store.writer
    people = [Person(f"s{i}", f"s{i}", Role.STUDENT, None, i) for i in range(1, n + 1)]
    added = accounts.import_roster(db, people, NOW).added
    rng = random.Random(n)
    with transaction(db):
        for account in added:
            upload = db.execute(
                "INSERT INTO uploads (sha256, size, name, account_id, received_at)"
                " VALUES ('0', 1, 'bot.py', ?, ?)",
                (account.id, stamp(NOW)),
            ).lastrowid
            db.execute(
                "INSERT INTO versions (account_id, number, upload_id, status, command,"
                " created_at, activated_at) VALUES (?, 1, ?, 'active', 'x', ?, ?)",
                (account.id, upload, stamp(NOW), stamp(NOW - timedelta(days=20))),
            )
        rows = []
        for i in range(n * per_version // 2):
            blue, orange = rng.sample(range(1, n + 1), 2)
            when = stamp(NOW - timedelta(seconds=30 * i))
            winner = rng.choice(["blue", "orange", None])
            rows.append(("ladder", blue, orange, i, "done", winner, "x", when, when, when))
        db.executemany(
            "INSERT INTO games (kind, blue, orange, seed, state, winner, reason, created_at,"
            " started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    return arena


def bench_store(folder: Path, n: int, runs: int) -> dict[str, float]:
    arena = ladder_store(folder, n)
    try:
        reader = arena.store.reader
        snapshots, fits, fit_cpu = [], [], []
        for _ in range(runs):
            start = time.perf_counter()
            schedule_snapshot(reader, NOW, arena.config, SLOTS)
            snapshots.append(time.perf_counter() - start)
            start, used = time.perf_counter(), time.process_time()
            store_ratings(arena.store.writer, fit(rating_data(reader), 10, NOW))
            fits.append(time.perf_counter() - start)
            fit_cpu.append(time.process_time() - used)
        return {"snapshot_ms": statistics.median(snapshots) * 1e3,
                "fit_ms": statistics.median(fits) * 1e3,
                "fit_cpu_ms": statistics.median(fit_cpu) * 1e3}  # fmt: skip
    finally:
        arena.close()


# -- games per minute ---------------------------------------------------------------------------


def finished_times(store: Path, table_state: str) -> list[datetime]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
    try:
        rows = db.execute(
            "SELECT finished_at FROM games WHERE state = ? AND finished_at IS NOT NULL",
            (table_state,),
        ).fetchall()
    finally:
        db.close()
    return sorted(datetime.fromisoformat(r[0]) for r in rows)


def bot(seed: int) -> str:
    return f"{sys.executable} -m bots random --game tic-tac-toe --seed {seed}"


def run_tournament(folder: Path, bots: int, games: int, concurrency: int) -> dict[str, float]:
    pairings = bots * (bots - 1) // 2
    per_pairing = max(1, round(games / pairings))
    lines = ['name = "bench"', 'game = "tic-tac-toe"', "seed = 3",
             f"games_per_pairing = {per_pairing}", f"concurrency = {concurrency}",
             'directory = "cup"']  # fmt: skip
    for i in range(bots):
        lines += ["[[players]]", f'name = "p{i}"', f'command = "{bot(i + 1)}"']
    config = folder / "cup.toml"
    config.write_text("\n".join(lines) + "\n")
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "run", str(config), "--quiet"],
        cwd=folder, check=True, capture_output=True,
    )  # fmt: skip
    wall = time.monotonic() - start
    times = finished_times(folder / "cup" / "tournament.sqlite", "finished")
    return rates(len(times), wall, times)


def run_arena(folder: Path, bots: int, games: int, concurrency: int) -> dict[str, float]:
    root = folder / "arena"
    new_arena(root, game="tic-tac-toe", name="bench")
    config = root / "arena.toml"
    config.write_text(
        config.read_text().replace("# concurrency = 2", f"concurrency = {concurrency}")
    )
    arena = open_arena(root)
    try:
        db = arena.store.writer
        people = [Person(f"s{i}", f"s{i}", Role.STUDENT, None, i) for i in range(1, bots + 1)]
        for account in accounts.import_roster(db, people, NOW).added:
            with transaction(db):
                upload = db.execute(
                    "INSERT INTO uploads (sha256, size, name, account_id, received_at)"
                    " VALUES ('0', 1, 'bot.py', ?, ?)",
                    (account.id, stamp(NOW)),
                ).lastrowid
                version = db.execute(
                    "INSERT INTO versions (account_id, number, upload_id, status, command,"
                    " created_at, activated_at) VALUES (?, 1, ?, 'active', ?, ?, ?)",
                    (account.id, upload, bot(account.id), stamp(NOW), stamp(NOW)),
                ).lastrowid
            (root / "versions" / str(version)).mkdir(mode=0o755)
    finally:
        arena.close()
    start = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-m", "referee", "arena", "serve", str(root), "--port", "0"],
        cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        while len(finished_times(root / "arena.sqlite", "done")) < games:
            time.sleep(0.05)
        wall = time.monotonic() - start
    finally:
        server.terminate()
        server.wait()
    times = finished_times(root / "arena.sqlite", "done")[:games]
    return rates(games, wall, times)


def rates(games: int, wall: float, times: list[datetime]) -> dict[str, float]:
    span = (times[-1] - times[0]).total_seconds() if len(times) > 1 else float("nan")
    return {"games": games, "per_min": games / wall * 60, "steady_per_min": (games - 1) / span * 60}


def bench_games(args: argparse.Namespace) -> list[dict[str, float]]:
    found = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-arena-") as scratch:
            folder = Path(scratch)
            folder.chmod(0o755)
            (folder / "t").mkdir(mode=0o755)
            (folder / "a").mkdir(mode=0o755)
            cup = run_tournament(folder / "t", args.bots, args.games, args.concurrency)
            ladder = run_arena(folder / "a", args.bots, int(cup["games"]), args.concurrency)
        fields = {
            "run": run + 1,
            "games": int(cup["games"]),
            "concurrency": args.concurrency,
            "tournament_per_min": cup["per_min"],
            "arena_per_min": ladder["per_min"],
            "tournament_steady_per_min": cup["steady_per_min"],
            "arena_steady_per_min": ladder["steady_per_min"],
            "ratio": ladder["per_min"] / cup["per_min"],
            "steady_ratio": ladder["steady_per_min"] / cup["steady_per_min"],
            "load": os.getloadavg()[0],
        }
        print("games " + " ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                                  for k, v in fields.items()), flush=True)  # fmt: skip
        found.append(fields)
    return found


def tables(
    scheduled: dict[int, dict[str, float]],
    stored: dict[int, dict[str, float]],
    games: list[dict[str, float]],
) -> list[str]:
    """The figures as docs/performance.md's tables (CPU times: what a run takes alone)."""

    def micro(value: float | None) -> str:
        if value is None:
            return ""
        return f"{value:.0f} µs" if value < 1000 else f"{value / 1000:.2g} ms"

    lines = []
    if scheduled or stored:
        lines += [
            "| active versions | scheduler, CPU per game | snapshot of the store"
            " | rating fit (read, fit, store), CPU |",
            "| --- | --- | --- | --- |",
        ]
        for n in sorted({*scheduled, *stored}):
            cpu = scheduled.get(n, {}).get("cpu_us_per_game")
            store = stored.get(n, {})
            lines.append(
                f"| {n:,} ({n * 25:,} games) | {micro(cpu)}"
                f" | {store.get('snapshot_ms', float('nan')):.0f} ms (wall)"
                f" | {store.get('fit_cpu_ms', float('nan')):.0f} ms |"
            )
        lines.append("")
    if games:

        def each(key: str, form: str = ".0f") -> str:
            return ", ".join(f"{g[key]:{form}}" for g in games)

        lines += [
            "| games | tournament | arena | arena / tournament | steady: tournament | arena"
            " | arena / tournament |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            f"| {each('games')} | {each('tournament_per_min')} | {each('arena_per_min')}"
            f" | {each('ratio', '.2f')} | {each('tournament_steady_per_min')}"
            f" | {each('arena_steady_per_min')} | {each('steady_ratio', '.2f')} |",
            "",
        ]
    lines.append(f"Load average at the end: {os.getloadavg()[0]:.1f}.")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", default="scheduler,ratings,games")
    parser.add_argument("--versions", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    parts = args.parts.split(",")
    scheduled: dict[int, dict[str, float]] = {}
    stored: dict[int, dict[str, float]] = {}
    games: list[dict[str, float]] = []
    if "scheduler" in parts:
        for n in args.versions:
            found = scheduled[n] = bench_scheduler(n, args.runs)
            print(f"scheduler versions={n} us_per_game={found['us_per_game']:.1f}"
                  f" cpu_us_per_game={found['cpu_us_per_game']:.1f}"
                  f" load={os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
    if "ratings" in parts or "scheduler" in parts:
        with tempfile.TemporaryDirectory(prefix="bench-arena-") as scratch:
            for n in args.versions:
                found = stored[n] = bench_store(Path(scratch), n, args.runs)
                print(f"store versions={n} games={n * 25} snapshot_ms={found['snapshot_ms']:.1f}"
                      f" fit_ms={found['fit_ms']:.1f} fit_cpu_ms={found['fit_cpu_ms']:.1f}"
                      f" load={os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
    if "games" in parts:
        games = bench_games(args)
    print()
    print("\n".join(tables(scheduled, stored, games)))


if __name__ == "__main__":
    main()
