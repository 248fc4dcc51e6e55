"""Run `referee analyse lielow`: the search with rich progress on stderr, the record, the report.

Without `--width`, the longest-game search runs beams of width 100, 200, 400, ... (seed, seed + 1,
...) until `--seconds` are up and keeps the longest game; the broad search widens the same way
until it finds a position. Ctrl-C stops the search: the best game found so far is still written
and reported, and the exit code is 130.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from referee.analysis.lielow_record import write_game
from referee.analysis.lielow_search import Found, broad_game, longest_game
from referee.commands import EXIT_INTERRUPTED, EXIT_OK

if TYPE_CHECKING:
    from rich.console import Console

FIRST_WIDTH = 100
EXIT_NOT_FOUND = 1  # the search ran, but found no game within its time


def _widths(args: argparse.Namespace) -> Iterator[tuple[int, int]]:
    """(width, seed) of each beam to run: one when --width is given, else doubling widths."""
    if args.width is not None:
        yield args.width, args.seed
        return
    width, seed = FIRST_WIDTH, args.seed
    while True:
        yield width, seed
        width, seed = width * 2, seed + 1


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
            for width, seed in _widths(args):
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
                    found = longest_game(width, seed, deadline, report)
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
