"""Reproduce the game values of Boardman's Legionnaires paper, with the time each one takes.

For every named layout of `referee analyse legionnaires --layout` (the small-board starts, the
impartial 3xn family, Fig. 10 as read here, a *2 position) it computes the canonical value and
the number of distinct positions reached, and sets them beside the paper's figures: `ok` when
every figure the paper gives matches, `DIFF` when one does not (Fig. 10 from n = 3: see
docs/analysis/legionnaires.md), `-` when the paper gives none for that layout.

    python scripts/legionnaires_values.py                  # every layout (rows-6 needs ~15 s)
    python scripts/legionnaires_values.py --only rows-     # the layouts whose name starts so
    python scripts/legionnaires_values.py --max-positions 50000

Each row is also printed as a `key=value` line with `--kv`. Progress is shown on stderr;
Ctrl-C stops and keeps the rows finished so far. The exit status is 1 when a figure differs
from the paper's outside the Fig. 10 layouts, whose differences are known.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.table import Table

from referee.analysis.cgt_notation import render
from referee.analysis.legionnaires import (
    TooManyPositions,
    analyse_with_progress,
    request_from_args,
)
from referee.analysis.legionnaires_layouts import LAYOUTS, Layout

KNOWN_DIFFERENCES = ("fig10-",)  # layouts the paper's figures are not reproduced for


def verdict(layout: Layout, shown: str, positions: int) -> str:
    checks = []
    if layout.paper_value is not None:
        checks.append(shown == layout.paper_value)
    if layout.paper_positions is not None:
        checks.append(positions == layout.paper_positions)
    if not checks:
        return "-"
    return "ok" if all(checks) else "DIFF"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", metavar="PREFIX", help="layouts named PREFIX...")
    parser.add_argument(
        "--max-positions", type=int, default=None, help="skip a layout past this many positions"
    )
    parser.add_argument("--kv", action="store_true", help="also print key=value lines")
    args = parser.parse_args(argv)
    out, err = Console(), Console(stderr=True)
    table = Table("layout", "board", "value", "paper", "positions", "paper", "", "seconds")
    unexpected = 0
    interrupted = False
    for name, layout in LAYOUTS.items():
        if not name.startswith(args.only):
            continue
        request = request_from_args(width=None, height=None, blue=None, orange=None, layout=name)
        try:
            found = analyse_with_progress(request, err, args.max_positions)
        except TooManyPositions:
            table.add_row(name, f"{layout.width}x{layout.height}", "skipped", "", "", "", "", "")
            continue
        except KeyboardInterrupt:
            interrupted = True
            break
        shown = render(found.game)
        result = verdict(layout, shown, found.positions)
        if result == "DIFF" and not name.startswith(KNOWN_DIFFERENCES):
            unexpected += 1
        table.add_row(
            name,
            f"{layout.width}x{layout.height}",
            shown,
            layout.paper_value or "",
            f"{found.positions:,}",
            f"{layout.paper_positions:,}" if layout.paper_positions else "",
            result,
            f"{found.seconds:.2f}",
        )
        if args.kv:
            print(
                f"layout={name} value={shown} positions={found.positions} "
                f"seconds={found.seconds:.3f} verdict={result}",
                flush=True,
            )
    out.print(table)
    if interrupted:
        err.print("interrupted: the rows above are the layouts finished")
        return 130
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
