"""Benchmark a large league: made, read, rated, served and painted.

Makes (or reuses) a league of `--players` bots and `--games` games in `--tournaments`
tournaments with scripts/league_generator.py, checks one tournament with `referee tournament
verify`, then measures, each as its own `referee` process (wall time and peak resident memory,
medians over `--runs`):

    add         `league add` of every tournament: the first read of every record, each checked
                as `tournament verify` checks it
    rate        `league rate` as configured (nothing new to read; the fit, 100 bootstrap
                resamples, the history by source), and its parts: --bootstrap 0 --history none,
                and the history alone
    export      `league export --html` without the replay pages (`--export-replays`: with them)

and then serves the league (`referee league serve`) and asks it for each dashboard page: the
server's time is the time to the whole answer over the loopback (median of `--requests`), and
the first paint is Chromium's `first-contentful-paint` of the page loaded from that server
(median of `--paints` loads). The server's peak resident memory is read at the end.

    python scripts/bench_league.py [--dir /tmp/league-bench] [--players 300] [--games 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.web import check_address
from scripts.league_generator import Plan, generate

CHROMIUM = "/usr/bin/chromium"
# The page's first contentful paint, in ms from the start of its navigation (None after 5 s).
FIRST_PAINT = """() => new Promise(resolve => {
  new PerformanceObserver(list => {
    const found = list.getEntries().find(e => e.name === "first-contentful-paint");
    if (found) resolve(found.startTime);
  }).observe({type: "paint", buffered: true});
  setTimeout(() => resolve(null), 5000);
})"""


def timed(args: list[str]) -> tuple[float, int, str]:
    """Run `referee ARGS`: wall seconds, peak resident memory (MiB), its output."""
    command = ["/usr/bin/time", "-f", "%e %M", sys.executable, "-m", "referee", *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"referee {' '.join(args)} failed:\n{done.stderr}")
    wall, rss = done.stderr.strip().split("\n")[-1].split()
    return float(wall), int(rss) // 1024, done.stdout + done.stderr


def median_run(args: list[str], runs: int) -> dict[str, float]:
    found = [timed(args) for _ in range(runs)]
    return {
        "wall_s": statistics.median(w for w, _, _ in found),
        "rss_mib": max(r for _, r, _ in found),
    }


def make(root: Path, plan: Plan) -> tuple[list[Path], float]:
    runs = root / "runs"
    if runs.is_dir() and len(list(runs.iterdir())) == plan.tournaments:
        return sorted(runs.iterdir()), 0.0
    shutil.rmtree(runs, ignore_errors=True)
    start = time.perf_counter()
    folders = generate(runs, plan)
    return folders, time.perf_counter() - start


def pages(base: str, league: Path) -> dict[str, str]:
    """The dashboard's pages to measure, with ids read from the index."""
    import sqlite3

    db = sqlite3.connect(f"file:{league / 'league.sqlite'}?mode=ro", uri=True)
    top = db.execute("SELECT v.bot FROM ratings r JOIN versions v ON v.id = r.version"
                     " ORDER BY r.rank LIMIT 1").fetchone()[0]  # fmt: skip
    two = db.execute("SELECT bot FROM versions GROUP BY bot HAVING COUNT(*) > 1 LIMIT 1")
    resubmitted = (two.fetchone() or [top])[0]
    total = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    db.close()
    last = -(-total // 50)
    return {
        "leaderboard": f"{base}/league/",
        "leaderboard, every version, page 3": f"{base}/league/?versions=all&page=3",
        "leaderboard, search": f"{base}/league/?q=bot-1",
        "bot (the best)": f"{base}/league/bot/{top}",
        "bot with two versions": f"{base}/league/bot/{resubmitted}",
        "bot, its wins, page 3": f"{base}/league/bot/{top}?result=win&page=3",
        "games, page 1": f"{base}/league/games",
        f"games, last page ({last})": f"{base}/league/games?page={last}",
        "games, draws by board-full": f"{base}/league/games?result=draw&reason=board-full",
        "crosstable, 64 players": f"{base}/league/crosstable?game=tic-tac-toe&top=64",
    }


def server_times(urls: dict[str, str], requests: int) -> dict[str, dict[str, float]]:
    found = {}
    for name, url in urls.items():
        times, size = [], 0
        for _ in range(requests):
            start = time.perf_counter()
            with urllib.request.urlopen(url, timeout=30) as answer:
                size = len(answer.read())
            times.append((time.perf_counter() - start) * 1000)
        found[name] = {
            "median_ms": statistics.median(times),
            "max_ms": max(times),
            "kb": size / 1024,
        }
    return found


def first_paints(urls: dict[str, str], loads: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    found = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        for name, url in urls.items():
            paints = []
            for _ in range(loads):
                context = browser.new_context()
                page = context.new_page()
                page.goto(url)
                page.wait_for_load_state("load")
                paint = page.evaluate(FIRST_PAINT)
                if paint is None:
                    raise SystemExit(f"Chromium reported no first paint for {url}")
                paints.append(float(paint))
                context.close()
            found[name] = statistics.median(paints)
        browser.close()
    return found


def serve(league: Path) -> tuple[subprocess.Popen[str], str]:
    port = check_address("127.0.0.1", 0)
    server = subprocess.Popen(
        [sys.executable, "-m", "referee", "league", "serve", str(league), "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(f"{base}/league/", timeout=5).read()
            return server, base
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("the league's server did not start")


def peak_memory(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    return int(found.group(1)) // 1024 if found else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/league-bench"))
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--tournaments", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--paints", type=int, default=5)
    parser.add_argument("--export-replays", action="store_true")
    args = parser.parse_args()
    plan = Plan(args.players, args.games, args.tournaments)
    report: dict[str, Any] = {"plan": plan.__dict__}
    folders, made = make(args.dir, plan)
    report["generate_s"] = made
    wall, _, said = timed(["tournament", "verify", str(folders[0])])
    verdict = [line for line in said.split("\n") if line.startswith("verified")]
    report["verify_one_tournament"] = {"wall_s": wall, "says": verdict}
    league = args.dir / "league"
    shutil.rmtree(league, ignore_errors=True)
    timed(["league", "new", str(league)])
    report["add"] = median_run(["league", "add", str(league), *map(str, folders)], 1)
    report["rate"] = median_run(["league", "rate", str(league)], args.runs)
    report["rate_fit_only"] = median_run(
        ["league", "rate", str(league), "--bootstrap", "0", "--history", "none"], args.runs
    )
    report["rate_history_only"] = median_run(
        ["league", "rate", str(league), "--bootstrap", "0"], args.runs
    )
    timed(["league", "rate", str(league)])  # the configured ratings, for the pages
    out = args.dir / "site"
    shutil.rmtree(out, ignore_errors=True)
    replays = [] if args.export_replays else ["--no-replays"]
    report["export"] = median_run(
        ["league", "export", str(league), "--html", str(out), *replays], 1
    )
    report["export"]["files"] = sum(len(files) for _, _, files in os.walk(out))
    server, base = serve(league)
    try:
        urls = pages(base, league)
        report["server"] = server_times(urls, args.requests)
        report["first_paint_ms"] = first_paints(urls, args.paints)
        report["server_peak_rss_mib"] = peak_memory(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
