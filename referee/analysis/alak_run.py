"""How `referee analyse alak` runs: the solve with rich progress on stderr, then the table.

Separate from `alak_command.py` so that declaring the command's arguments imports nothing
heavy; this module is imported only when the command runs.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from bots.solvers.retrograde import TooBig
from referee import EXIT_INTERRUPTED, EXIT_OK, EXIT_VOID
from referee.analysis.alak_solve import Openings, baljeu_openings, traditional_openings


class OutOfTime(Exception):
    """The run passed its `--seconds`."""


@contextmanager
def progress_on(err: Console, deadline: float | None) -> Iterator[Callable[[str, int, int], None]]:
    """A progress callback for the solver: a rich bar on stderr when it is a terminal; it
    raises OutOfTime once `deadline` (a `time.monotonic()` value) has passed."""

    def check() -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise OutOfTime

    if not err.is_terminal:

        def quiet(phase: str, done: int, total: int) -> None:
            check()

        yield quiet
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,} states"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=True) as progress:
        tasks: dict[str, TaskID] = {}

        def update(phase: str, done: int, total: int) -> None:
            check()
            if phase not in tasks:
                tasks[phase] = progress.add_task(phase, total=total)
            progress.update(tasks[phase], completed=done, total=total)

        yield update


def solve(size: int, variant: str, err: Console, seconds: float, max_states: int) -> Openings:
    deadline = time.monotonic() + seconds if seconds > 0 else None
    with progress_on(err, deadline) as update:
        if variant == "baljeu":
            return baljeu_openings(size, update, max_states)
        return traditional_openings(size, update, max_states=max_states)


def describe(result: Openings) -> list[str]:
    """The table as lines for people: the game's value, then each opening."""
    rules = "traditional Alak" if result.variant == "traditional" else "Alak (Baljeu's rules)"
    value = result.value
    verdict = "a draw" if value == "draw" else f"{value} wins" if value != "unresolved" else value
    lines = [
        f"{rules} on {result.size} points: {verdict} with perfect play "
        f"(best openings: {', '.join(result.best)}); {result.positions:,} positions "
        f"in {result.seconds:.2f} s"
    ]
    for move, outcome in result.results.items():
        plies = result.plies[move]
        if outcome in ("draw", "unresolved"):
            lines.append(f"  {move:<5} {outcome}")
        else:
            lines.append(f"  {move:<5} {outcome} wins in {plies} plies")
    return lines


def run(args: argparse.Namespace, out: Console, err: Console) -> int:
    """`referee analyse alak` with its parsed arguments (see `alak_command`)."""
    size, seconds = args.size, args.seconds
    try:
        result = solve(size, args.variant, err, seconds, args.max_states)
    except KeyboardInterrupt:
        err.print("interrupted: nothing solved for this size")
        return EXIT_INTERRUPTED
    except OutOfTime:
        err.print(f"gave up after {seconds:g} s: the board of {size} points is not solved")
        return EXIT_VOID
    except TooBig as exc:
        err.print(f"{size} points: {exc}, too many to solve in memory here")
        return EXIT_VOID
    if args.json:
        out.out(json.dumps(result.as_json()), highlight=False)
    else:
        for line in describe(result):
            out.out(line, highlight=False)
    return EXIT_OK
