"""Reproduce Boardman's table of reachable Legionnaires positions on small boards, with timing.

A position is the pair of pawn sets (blue = White, orange = Black) without a side to move; from
every position either player may move next; the start position is counted. These are the only
conventions under which all five of the paper's numbers come out (see
protocols/legionnaires/rules.md).

    python scripts/legionnaires_positions.py
"""

from __future__ import annotations

import time

from bots.solvers.legionnaires import reachable_positions
from protocols.legionnaires.options import LegionnairesOptions

# (width, height, White's pawns, Black's pawns, the paper's count)
PAPER_TABLE = (
    (2, 2, "a1", "a2", 3),
    (3, 2, "a1 c1", "a2 c2", 35),
    (3, 3, "a1 c1", "a3 c3", 35),
    (4, 4, "a1 c1 b2 d2", "a4 c4 b3 d3", 982),
    (5, 5, "a1 c1 e1 b2 d2 a3", "e5 c5 a5 d4 b4 e3", 14_789),
)


def main() -> int:
    """Print the table; the exit status is 1 when a count differs from the paper's."""
    print(f"{'board':>6}  {'positions':>10}  {'paper':>10}  {'':4}  {'seconds':>8}  {'pos/s':>10}")
    failures = 0
    for width, height, white, black, paper in PAPER_TABLE:
        options = LegionnairesOptions(width=width, height=height, blue=white, orange=black)
        start = time.perf_counter()
        count = reachable_positions(options)
        elapsed = time.perf_counter() - start
        rate = count / elapsed if elapsed > 0 else float("inf")
        verdict = "ok" if count == paper else "DIFF"
        failures += count != paper
        print(
            f"{width}x{height:<4}  {count:>10,}  {paper:>10,}  {verdict:4}  "
            f"{elapsed:>8.3f}  {rate:>10,.0f}"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
