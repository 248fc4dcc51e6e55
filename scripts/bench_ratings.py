"""Benchmark the rating model (`referee.stats.rating`) at the sizes of a course over many terms.

Each case is measured in a fresh Python process (so its peak resident memory is its own): the
games are drawn from known ratings (seeded; not timed), handed to `RatingInput.add_indexed`,
and rated by `rate()` with Laplace intervals. Printed per case: the median wall time over
`--runs` runs, the median CPU time (user + system: what the run would take alone on one core,
whatever else the machine runs), the largest peak memory, the time of adding the games alone,
and the machine's load average when the case ended.

    large    1,000,000 games among 3,000 versions (target: < 30 s, < 1 GB)
    league   100,000 games among 1,800 versions (target: < 10 s)

The processes run with one BLAS thread, as `referee league` runs its fit (referee/league's
`__init__`): on a busy 2-core machine more threads make every dense solve wait.

    python scripts/bench_ratings.py [--runs 3] [--cases large,league]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = {"large": (3000, 1_000_000), "league": (1800, 100_000)}


def games(players: int, count: int, seed: int = 1) -> tuple[object, object]:
    """(truth, table) of `count` games between random pairs, one kind, advantage 30, margin 100:
    table rows are (first, second, kind, outcome, 1)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    truth = rng.normal(0, 200, players)
    first = rng.integers(0, players, count)
    second = (first + rng.integers(1, players, count)) % players
    x = truth[first] - truth[second] + 30
    wins = 1 / (1 + 10 ** (-(x - 100) / 400))
    losses = 1 / (1 + 10 ** (-(-x - 100) / 400))
    u = rng.random(count)
    outcome = np.where(u < wins, 0, np.where(u < 1 - losses, 1, 2))
    ones = np.ones(count, dtype=np.int64)
    return truth, np.stack([first, second, 0 * ones, outcome, ones], axis=1)


def measure(case: str) -> dict[str, float]:
    """One run of a case in this process."""
    players, count = CASES[case]
    _, table = games(players, count)
    names = [f"v{i}" for i in range(players)]
    before = resource.getrusage(resource.RUSAGE_SELF)
    cpu_before = before.ru_utime + before.ru_stime
    from referee.stats.rating import RatingInput, rate

    start = time.perf_counter()
    data = RatingInput()
    data.add_indexed(names, ["g"], table)  # type: ignore[arg-type]
    add = time.perf_counter() - start
    report = rate(data)
    wall = time.perf_counter() - start
    assert report.converged
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu_before
    return {"wall_s": wall, "cpu_s": cpu, "add_s": add, "rss_mib": usage.ru_maxrss / 1024}


def run(case: str) -> dict[str, float]:
    environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    environment["PYTHONPATH"] = str(ROOT) + os.pathsep + environment.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--one", case],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
        cwd=ROOT,
    )
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cases", default="large,league")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one)))
        return
    for case in args.cases.split(","):
        runs = args.runs
        found = [run(case) for _ in range(runs)]
        players, count = CASES[case]
        load = os.getloadavg()[0]
        print(
            f"case={case} players={players} games={count} runs={runs}"
            f" wall_s={statistics.median(f['wall_s'] for f in found):.2f}"
            f" cpu_s={statistics.median(f['cpu_s'] for f in found):.2f}"
            f" add_s={statistics.median(f['add_s'] for f in found):.2f}"
            f" peak_rss_mib={max(f['rss_mib'] for f in found):.0f} load_1min={load:.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
