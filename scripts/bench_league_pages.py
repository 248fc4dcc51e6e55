"""Benchmark the league dashboard's lists of games at a million games: every page, the first
as the millionth, under 100 ms of server time.

The index is built synthetically (`build`: rows written straight into a league's index, no
tournament behind them, a few seconds for a million games; the rows are as `league add` writes
them: games of `--bots` bots in `--sources` sources, one game a second, results and reasons
drawn with a seed). Then each kind of page is asked for `--runs` times, as the server makes it
(the query and the HTML: `queries.games` and `games_page` or `bot_page`'s list), and the
median and 95th percentile are printed, in ms:

    newest        /league/games
    deep          a page a third of the way down, reached by its key (`?after=`)
    oldest        the last page (`?oldest=1`)
    back          a page before a deep one (`?before=`)
    reason        /league/games?reason=R, a page deep
    bot           /league/bot/B's games, a page deep
    bot-losses    the same, only its losses by a fault
    game          /league/games?game=G, a page deep

    python scripts/bench_league_pages.py [--games 1000000] [--bots 300] [--dir D] [--keep]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.league import queries
from referee.league.config import LeagueConfig, save_league
from referee.league.index import LeagueIndex, open_index
from referee.league.queries import At, GameFilter, GamePage
from referee.web.league_pages import games_page, server_links

REASONS = ("three-in-a-row", "no moves", "timeout", "illegal move", "crash")
KINDS = ("alak", "lielow")


def build(folder: Path, games: int, bots: int = 300, sources: int = 20, seed: int = 1) -> None:
    """A league folder whose index holds `games` games (no tournaments behind them)."""
    folder.mkdir(parents=True, exist_ok=True)
    save_league(folder, LeagueConfig(name="pages", sources=[]))
    rng = random.Random(seed)
    index = open_index(folder, writer=True)
    db = index.db
    try:
        with db:
            db.executemany(
                "INSERT INTO sources VALUES (?, ?, ?, 'tournament', ?, ?)",
                [(s + 1, f"/runs/week{s}", s, f"week{s}", KINDS[s % 2]) for s in range(sources)],
            )
            db.executemany(
                "INSERT INTO bots VALUES (?, ?, ?)",
                [(b + 1, KINDS[b % 2], f"bot-{b:04d}") for b in range(bots)],
            )
            db.executemany(
                "INSERT INTO versions VALUES (?, ?, ?, 'python3 bot.py', '2026-01-01T00:00:00')",
                [(b + 1, b + 1, f"{b:064x}") for b in range(bots)],
            )
            start = datetime(2026, 1, 1, tzinfo=UTC)
            per_source = -(-games // sources)
            by_kind = [[b + 1 for b in range(bots) if b % 2 == k] for k in range(2)]

            def rows() -> object:
                for n in range(games):
                    source, number = n // per_source + 1, n % per_source + 1
                    players = by_kind[(source - 1) % 2]
                    blue, orange = rng.sample(players, 2)
                    result = rng.choice(("blue", "orange", "draw"))
                    reason = rng.choice(REASONS)
                    fault = None
                    if reason in ("timeout", "illegal move", "crash") and result != "draw":
                        fault = "orange" if result == "blue" else "blue"
                    # Sources overlap in time, as tournaments run side by side do.
                    finished = (start + timedelta(seconds=n % per_source * 20 + source)).isoformat()
                    yield (
                        source, number, KINDS[(source - 1) % 2], blue, orange, result, reason,
                        fault, 1, 30, f"games/{number:07d}.jsonl", finished, finished,
                        None, f"{n:064x}", "seen",
                    )  # fmt: skip

            db.executemany(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows()
            )
            db.execute("INSERT OR REPLACE INTO meta VALUES ('rated_at', 'never')")
    finally:
        index.close()


def measure(work: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median and 95th percentile of `work`'s wall time, in ms."""
    times = []
    for _ in range(runs):
        begun = time.perf_counter()
        work()
        times.append((time.perf_counter() - begun) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]


def deep(index: LeagueIndex, chosen: GameFilter) -> At:
    """The key of a page a third of the way down the list (found once, not timed)."""
    condition, args = chosen.query()
    (total,) = index.db.execute(f"SELECT COUNT(*) FROM games g WHERE {condition}", args).fetchone()
    row = index.db.execute(
        f"SELECT finished_at, source, number FROM games g WHERE {condition}"
        " ORDER BY finished_at DESC, source DESC, number DESC LIMIT 1 OFFSET ?",
        [*args, total // 3],
    ).fetchone()
    return At(after=queries.page_key(*row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--bots", type=int, default=300)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/league-pages-bench"))
    parser.add_argument("--keep", action="store_true", help="measure the index already there")
    options = parser.parse_args()
    if not options.keep:
        if options.dir.exists():
            shutil.rmtree(options.dir)
        begun = time.perf_counter()
        build(options.dir, options.games, options.bots)
        print(f"index of {options.games:,} games built in {time.perf_counter() - begun:.1f} s")
    links = server_links()
    index = open_index(options.dir, writer=False)
    try:
        reasons, played = queries.reasons(index), queries.games_played(index)

        def page(chosen: GameFilter, at: At) -> Callable[[], object]:
            def work() -> str:
                found: GamePage = queries.games(index, chosen, at)
                return games_page(found, chosen, reasons, played, links)

            return work

        every = GameFilter()
        middle = deep(index, every)
        back = queries.games(index, every, middle).older
        assert back is not None
        cases = {
            "newest": (every, At()),
            "deep": (every, middle),
            "oldest": (every, At(oldest=True)),
            "back": (every, At(before=back.after)),
            "reason": (GameFilter(reason="timeout"), deep(index, GameFilter(reason="timeout"))),
            "bot": (GameFilter(bot=7), deep(index, GameFilter(bot=7))),
            "bot-losses": (
                GameFilter(bot=7, fault=True),
                deep(index, GameFilter(bot=7, fault=True)),
            ),
            "game": (GameFilter(game="alak"), deep(index, GameFilter(game="alak"))),
        }
        print(f"{'page':<12} {'median ms':>10} {'p95 ms':>8}")
        for name, (chosen, at) in cases.items():
            median, p95 = measure(page(chosen, at), options.runs)
            print(f"{name:<12} {median:>10.1f} {p95:>8.1f}")
    finally:
        index.close()


if __name__ == "__main__":
    main()
