"""Benchmark a sandboxed bot's start with many game records in the folder it runs in.

Each record there is hidden from the bot by a mount of its own (docs/isolation.md). For 0, 100,
1,000 and 2,000 records (or the counts given), the sandbox of a bot run in such a folder is made
by the compiled helper and by bubblewrap and runs `/bin/true`; the median wall time of a few
starts is printed per program (bubblewrap only up to 2,900 records: it takes 9,000 words at
most). Needs root (the compiled helper makes the sandbox only for a root referee).

Usage: python scripts/bench_hidden_records.py [COUNT...]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.isolation import native
from referee.isolation.sandbox import View, sandbox_argv
from referee.tournament.bot_folders import RECORD_SUFFIX

HEADER = '{"type": "header", "game": "alak", "chain": "0"}\n'
BUBBLEWRAP_WORDS = 9000


def start_ms(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            sys.exit(f"{argv[0]}: {done.stderr.decode(errors='replace').strip()}")
    return statistics.median(times) * 1000


def main() -> None:
    helper = native.native_helper()
    bwrap = shutil.which("bwrap")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "counts", nargs="*", type=int, default=[0, 100, 1000, 2000], help="records in the folder"
    )
    counts = parser.parse_args().counts
    print("records | compiled helper | bubblewrap")
    for count in counts:
        folder = Path(tempfile.mkdtemp(prefix="bench-records-"))
        try:
            records = [folder / f"game{n}{RECORD_SUFFIX}" for n in range(count)]
            for record in records:
                record.write_text(HEADER)
            public = [Path(sys.prefix), Path(sys.base_prefix)]
            view = View(cwd=folder, writable=False, own=[], public=public, hidden=records)
            runs = 3 if count > 1000 else 9
            row = [f"{count:,}"]
            for program in (
                [str(helper), "sandbox"] if helper else None,
                [bwrap] if bwrap else None,
            ):
                argv = [*sandbox_argv(program, view), "/bin/true"] if program else []
                fits = program is not None and (
                    program[0] != bwrap or len(argv) <= BUBBLEWRAP_WORDS
                )
                row.append(f"{start_ms(argv, runs):.0f} ms" if fits else "-")
            print(" | ".join(row), flush=True)
        finally:
            shutil.rmtree(folder)


if __name__ == "__main__":
    main()
