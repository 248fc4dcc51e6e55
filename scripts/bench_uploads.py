"""Benchmark the arena's upload path: from a student's upload of a Python bot to its check's
result, as `referee arena submit --wait` sees it.

It makes an arena in a temporary folder (tic-tac-toe, the default `[check]`: one game in each
colour against the built-in random bot, the default isolation), with one student per upload,
starts `referee arena serve` on a free port, and uploads a small Python bot N times, one after
the other, each by another student (so that no upload waits behind another or supersedes it).
Each figure is the time from just before the upload's request to the first answer of
`GET /api/versions/ID` that shows the version active, asked every 20 ms: the upload, the
worker's pick-up, the unpacking, the build step, the check's start-up timing and its games.

Every line is `key=value`: the median, the 95th percentile and the worst, in seconds, and the
load average at the end; then the same as a table for docs/performance.md.

Usage: python scripts/bench_uploads.py [--uploads N]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from referee.arena import accounts
from referee.arena.folder import new_arena, open_arena
from referee.arena.roster import Person
from referee.arena.rows import Role
from referee.arena.submit import ArenaClient, wait_for

BOT = b"""\
import sys
taken = set()
squares = [c + r for r in "123" for c in "abc"]
mine = sys.stdin.readline().strip() == "blue"
while True:
    if not mine:
        line = sys.stdin.readline().strip()
        if not line or line == "END":
            break
        taken.add(line.lower())
    mine = False
    move = next(s for s in squares if s not in taken)
    taken.add(move)
    print(move, flush=True)
"""


def tokens(root: Path, count: int) -> list[str]:
    new_arena(root, game="tic-tac-toe")
    arena = open_arena(root)
    try:
        people = [Person(f"s{n}", f"Student {n}", Role.STUDENT, None, n) for n in range(count)]
        added = accounts.import_roster(arena.store.writer, people, datetime.now(UTC)).added
        return [accounts.rotate_token(arena.store.writer, a.id) for a in added]
    finally:
        arena.close()


def serve(root: Path) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "referee", "arena", "serve", str(root), "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stderr is not None
    for line in server.stderr:
        if found := re.search(r"the arena: (http://\S+?)/ ", line):
            return server, found.group(1)
    raise SystemExit("the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "arena"
        keys = tokens(root, args.uploads)
        server, url = serve(root)
        times = []
        try:
            for key in keys:
                client = ArenaClient(url, key)
                start = time.monotonic()
                made = client.upload("bot.py", BOT)
                done = wait_for(client, made["id"], timeout=120, poll=0.02)
                times.append(time.monotonic() - start)
                if done is None or done["status"] != "active":
                    raise SystemExit(f"the upload did not become active: {done}")
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=60)
    times.sort()
    print(f"uploads={len(times)}")
    print(f"upload_to_result_median_s={statistics.median(times):.2f}")
    print(f"upload_to_result_p95_s={times[max(0, round(0.95 * len(times)) - 1)]:.2f}")
    print(f"upload_to_result_worst_s={times[-1]:.2f}")
    print(f"load_average={os.getloadavg()[0]:.1f}")
    print()
    print("| uploads | median | 95th percentile | worst | load average |")
    print("| --- | --- | --- | --- | --- |")
    print(
        f"| {len(times)} | {statistics.median(times):.2f} s"
        f" | {times[max(0, round(0.95 * len(times)) - 1)]:.2f} s | {times[-1]:.2f} s"
        f" | {os.getloadavg()[0]:.1f} |"
    )


if __name__ == "__main__":
    main()
