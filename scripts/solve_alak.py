"""Solve Alak on small boards, print perfect-play results: `python scripts/solve_alak.py [LO [HI]]`.

For each size from LO to HI (default 2..7) it explores every state reachable from the empty board,
runs the retrograde analysis of `bots.solvers.alak` (endless play counts as a draw; the
repetition and ply-limit counters are ignored) and prints the result for the first player (blue),
the length of the game under perfect play, the value of each opening move, and the time taken.

`--table baljeu|traditional` prints instead one Markdown row per size (size, value, best
openings, positions, seconds) from `referee.analysis.alak_solve`, the rows of
docs/analysis/alak.md, and then `key=value` lines; `--max-states` stops before a board whose
search would pass that many states (the traditional graph grows about 3.5x per point), and
Ctrl-C keeps the rows already printed. Run long tables under `nice -n 19`.
"""

from __future__ import annotations

import argparse
import time

from bots.solvers.alak import Solution, Value, solve
from protocols.alak.rules import GAME, LETTERS, start_position

# An opening move's value is the opponent's value after it, seen from the first player.
_FOR_FIRST = {Value.LOSS: "win", Value.DRAW: "draw", Value.WIN: "loss"}


def openings(solution: Solution) -> str:
    """Each opening move with its result for the first player, e.g. `a:loss b:win`."""
    start = start_position(solution.size, repetition=0, ply_limit=0)
    parts = []
    for move in GAME.legal_moves(start):
        value, plies = solution.value(GAME.apply(start, move))
        length = f"/{plies + 1}" if value is not Value.DRAW else ""
        parts.append(f"{LETTERS[move.point]}:{_FOR_FIRST[value]}{length}")
    return " ".join(parts)


def report(size: int) -> None:
    began = time.perf_counter()
    solution = solve(size)
    elapsed = time.perf_counter() - began
    value, plies = solution.value(start_position(size))
    result = {Value.WIN: "win", Value.LOSS: "loss", Value.DRAW: "draw"}[value]
    length = f" in {plies} {'ply' if plies == 1 else 'plies'}" if value is not Value.DRAW else ""
    rate = len(solution.index) / elapsed if elapsed > 0 else float("inf")
    print(
        f"{size:2} points: first player {result}{length}; {len(solution.index):,} states "
        f"(mover's view) solved in {elapsed:.2f} s ({rate:,.0f} states/s)"
    )
    print(f"           openings (result/plies): {openings(solution)}")


def table(variant: str, sizes: range, max_states: int) -> None:
    """Markdown rows for docs/analysis/alak.md, one per size, then key=value lines."""
    from bots.solvers.retrograde import TooBig
    from referee.analysis.alak_solve import baljeu_openings, traditional_openings

    print("| points | value | best openings | positions | seconds |")
    print("|-------:|-------|---------------|----------:|--------:|")
    timings = []
    try:
        for size in sizes:
            try:
                if variant == "baljeu":
                    result = baljeu_openings(size)
                else:
                    result = traditional_openings(size, max_states=max_states)
            except TooBig:
                print(f"size {size}: more than {max_states:,} states, stopped")
                break
            best = ", ".join(f"`{move}`" for move in result.best)
            print(
                f"| {size} | {result.value} | {best} | {result.positions:,} | "
                f"{result.seconds:.2f} |",
                flush=True,
            )
            timings.append((size, result.seconds, result.positions, result.window))
    except KeyboardInterrupt:
        print("interrupted: the rows above are complete")
    for size, seconds, positions, window in timings:
        line = f"{variant}_size{size}_seconds={seconds:.3f} {variant}_size{size}_states={positions}"
        print(line + (f" {variant}_size{size}_window={window}" if window else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("lo", type=int, nargs="?", default=2, help="smallest board (default 2)")
    parser.add_argument("hi", type=int, nargs="?", help="largest board (default: max(LO, 7))")
    parser.add_argument("--table", choices=("baljeu", "traditional"), help="Markdown rows")
    parser.add_argument(
        "--max-states", type=int, default=30_000_000, help="state limit per board (traditional)"
    )
    args = parser.parse_args()
    hi = args.hi if args.hi is not None else max(args.lo, 7)
    if args.table:
        table(args.table, range(args.lo, hi + 1), args.max_states)
        return
    for size in range(args.lo, hi + 1):
        report(size)


if __name__ == "__main__":
    main()
