"""Run `referee analyse lielow`: the search with rich progress on stderr, the record, the report.

The search runs one beam per seed (--seed, --seed + 1, ...) until `--seconds` are up or `--runs`
beams have run, and keeps the longest game; each longest game's ending is then searched again
exactly once few stacks are left (`polish`). The broad search stops at its first position.
Ctrl-C stops the search: the best game found so far is still written and reported, and the exit
code is 130.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from referee import EXIT_INTERRUPTED, EXIT_OK
from referee.analysis.lielow_record import write_game
from referee.analysis.lielow_search import Found, broad_game, longest_game, polish

if TYPE_CHECKING:
    from rich.console import Console

# Default beam widths: measured to find the puzzles' games in seconds (docs/analysis/lielow.md).
WIDTHS = {"longest": 100, "broad": 200}
EXIT_NOT_FOUND = 1  # the search ran, but found no game within its time
# The exact endgame search takes over with this many stacks left, within this many positions.
POLISH_STACKS = 6
POLISH_LIMIT = 400_000


def _runs(args: argparse.Namespace, puzzle: str) -> Iterator[tuple[int, int]]:
    """(width, seed) of each beam to run: seeds from --seed up, --runs of them (0: no end)."""
    width = args.width or WIDTHS[puzzle]
    seeds: Iterator[int] = itertools.count(args.seed)
    if args.runs:
        seeds = iter(range(args.seed, args.seed + args.runs))
    for seed in seeds:
        yield width, seed


def run_puzzle(args: argparse.Namespace, out: Console, err: Console) -> int:
    puzzle = "longest" if args.longest else "broad"
    what = "plies" if puzzle == "longest" else "moves"
    started = time.monotonic()
    stop_at = started + args.seconds
    best: Found | None = None
    best_width = best_seed = 0
    interrupted = False
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=False) as progress:
        try:
            for width, seed in _runs(args, puzzle):
                if time.monotonic() >= stop_at:
                    break
                task = progress.add_task(
                    f"{puzzle}: width {width}, seed {seed}", total=None, status=""
                )

                def report(
                    layer: int, found: int, score: int, positions: int, task: TaskID = task
                ) -> None:
                    status = f"ply {layer}, best {found} {what}, beam {score}, {positions:,}"
                    progress.update(task, status=status)

                def deadline() -> bool:
                    return bool(time.monotonic() >= stop_at)

                if puzzle == "longest":
                    found = longest_game(width, seed, deadline, report, args.capture)
                    if not found.interrupted:  # after Ctrl-C, report at once
                        status = f"{len(found.moves)} plies; exact endgame..."
                        progress.update(task, status=status)
                        polished = polish(found.moves, POLISH_STACKS, POLISH_LIMIT)
                        found = replace(found, moves=polished)
                        progress.update(task, status=f"{len(found.moves)} plies")
                    better = best is None or len(found.moves) > len(best.moves)
                else:
                    found = broad_game(width, seed, deadline=deadline, progress=report)
                    better = best is None or (bool(found.moves) and not best.moves)
                if better:
                    best, best_width, best_seed = found, width, seed
                progress.update(task, total=1, completed=1)
                if found.interrupted:
                    interrupted = True
                    break
                if puzzle == "broad" and found.moves:
                    break
        except KeyboardInterrupt:
            interrupted = True
    seconds = time.monotonic() - started
    return _report(args, out, err, puzzle, best, best_width, best_seed, seconds, interrupted)


def _report(
    args: argparse.Namespace,
    out: Console,
    err: Console,
    puzzle: str,
    best: Found | None,
    width: int,
    seed: int,
    seconds: float,
    interrupted: bool,
) -> int:
    moves = best.moves if best is not None else []
    summary: dict[str, object] = {
        "puzzle": puzzle,
        "plies": len(moves),
        "width": width,
        "seed": seed,
        "seconds": round(seconds, 1),
        "positions": best.positions if best is not None else 0,
        "interrupted": interrupted,
    }
    if puzzle == "broad":
        summary["position_after_ply"] = best.mark if best is not None else None
    if moves and args.out is not None:
        title = (
            "longest game search"
            if puzzle == "longest"
            else f"broad position search (64 moves after ply {best.mark if best else 0})"
        )
        result = write_game(args.out, moves, title, seed)
        summary["out"] = str(args.out)
        summary["result"] = f"{result.winner} wins: {result.detail}"
    summary["moves"] = moves
    if args.json:
        out.out(json.dumps(summary), highlight=False)
    elif not moves:
        err.print(f"{puzzle}: nothing found in {seconds:.1f} s", highlight=False)
    else:
        line = f"{puzzle}: {len(moves)} plies (width {width}, seed {seed}, {seconds:.1f} s)"
        if puzzle == "broad":
            line += f"; the player to move has 64 moves after ply {summary['position_after_ply']}"
        out.print(line, highlight=False)
        if "out" in summary:
            out.print(f"written to {summary['out']} ({summary['result']})", highlight=False)
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if moves else EXIT_NOT_FOUND
