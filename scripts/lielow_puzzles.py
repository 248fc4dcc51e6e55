"""The long run of Lielow's puzzles: many seeded beams for the longest game, and the broad search.

    nice -n 19 python3 scripts/lielow_puzzles.py --seconds 600 --out-dir /tmp/lielow

runs `referee analyse lielow --longest` over seeds 0, 1, 2, ... for --seconds, then `--broad`,
writing each puzzle's best game as a record in --out-dir, and prints what it found as `key=value`
lines: the game's length, the seed and width that found it, and the seconds each search took.
Progress goes to stderr; Ctrl-C stops the search and still writes the best game found so far.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path


def run(puzzle: str, options: argparse.Namespace, out: Path) -> dict[str, object]:
    """One `referee analyse lielow` search; its --json summary, with the wall time it took."""
    command = [
        sys.executable,
        "-m",
        "referee",
        "analyse",
        "lielow",
        f"--{puzzle}",
        "--json",
        "--seed",
        str(options.seed),
        "--seconds",
        str(options.seconds),
        "--out",
        str(out),
    ]
    if options.width:
        command += ["--width", str(options.width)]
    started = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    summary: dict[str, object] = json.loads(done.stdout) if done.stdout.strip() else {}
    summary["wall_seconds"] = round(time.monotonic() - started, 1)
    summary["exit"] = done.returncode
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="per puzzle (default 600)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--width", type=int, default=0, help="beam width (default: the command's)")
    parser.add_argument("--out-dir", type=Path, default=Path("lielow-puzzles"))
    parser.add_argument("--only", choices=["longest", "broad"], default=None)
    options = parser.parse_args()
    options.out_dir.mkdir(parents=True, exist_ok=True)
    for puzzle in ["longest", "broad"]:
        if options.only not in (None, puzzle):
            continue
        summary = run(puzzle, options, options.out_dir / f"lielow-{puzzle}.jsonl")
        for key in ["plies", "seed", "width", "seconds", "wall_seconds", "exit"]:
            print(f"{puzzle}_{key}={summary.get(key)}", flush=True)
        if puzzle == "broad":
            print(f"broad_position_after_ply={summary.get('position_after_ply')}", flush=True)
        if summary.get("interrupted"):
            return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
