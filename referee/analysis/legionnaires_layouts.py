"""The named Legionnaires positions of Boardman's paper, as `referee analyse legionnaires
--layout NAME` knows them, with the values and position counts the paper gives.

Plain data only (no imports beyond the standard library), so the command can list the names
cheaply. Layouts the paper does not draw in its text are reconstructed: the position counts
pin them down (see docs/analysis/legionnaires.md for what was tried and what matched).
"""

from __future__ import annotations

from typing import NamedTuple


class Layout(NamedTuple):
    """A start position: board size, blue's (White's) and orange's (Black's) pawns, and what
    the paper says of it (None where it says nothing we could tie to this layout)."""

    width: int
    height: int
    blue: str
    orange: str
    about: str
    paper_value: str | None = None
    paper_positions: int | None = None


FILES = "abcdefghijklmnopqrstuvwxyz"


def _row(count: int, rank: int) -> str:
    return " ".join(f"{FILES[file]}{rank}" for file in range(count))


# The impartial 3xn family: n pawns of each colour on the two outer rows of an n x 3 board.
ROWS_VALUES = {1: "0", 2: "*", 3: "*", 4: "*", 5: "+-{*,^}", 6: "+-{*,^}"}

# Fig. 10's family as we read it: n White pawns on the first row, one Black pawn beyond an
# empty row. The paper's values for n = 1, 2, 3 and its counts for n = 2..5 (these counts are
# not what this layout gives: see the docs).
FIG10_VALUES = {1: "0", 2: "v", 3: "v*"}
FIG10_POSITIONS = {2: 8, 3: 30, 4: 59, 5: 103}

# Not in the paper: families measured for its Fig. 12 (atomic weights), whose layouts its text
# does not give (docs/analysis/legionnaires.md). rows-n+k: the rows-n position with k more
# orange pawns on the top row (n blue on a1.., n + k orange on a3.. of an (n+k)-wide board).
EXTRA_ORANGE = range(1, 4)  # k
EXTRA_BLUE = range(1, 5)  # n

# ups-k: k copies of the rows-1+1 block (blue x1, orange x3 and the file after it), three empty
# files apart. A pawn always ends its move on the square of the pawn it took, so each block's
# pawns stay on that block's squares; a slide on a 3-high board crosses at most two files and the
# capture one more, so no pawn reaches another block, and the position is the sum of its blocks.
UPS_GAP = 3


def _ups(count: int) -> Layout:
    files = [block * (2 + UPS_GAP) for block in range(count)]
    return Layout(
        files[-1] + 2,
        3,
        " ".join(f"{FILES[file]}1" for file in files),
        " ".join(f"{FILES[file + step]}3" for file in files for step in (0, 1)),
        f"{count} copies of rows-1+1, {UPS_GAP} empty files apart",
    )


LAYOUTS: dict[str, Layout] = {
    "start-2x2": Layout(2, 2, "a1", "a2", "the 2x2 start", "*", 3),
    "start-3x2": Layout(3, 2, "a1 c1", "a2 c2", "the start 3 wide, 2 high", "*", 35),
    "start-3x3": Layout(3, 3, "a1 c1", "a3 c3", "the 3x3 start", "*", 35),
    "start-4x4": Layout(4, 4, "a1 c1 b2 d2", "a4 c4 b3 d3", "the 4x4 start", None, 982),
    "start-5x5": Layout(
        5, 5, "a1 c1 e1 b2 d2 a3", "e5 c5 a5 d4 b4 e3", "the 5x5 start", None, 14_789
    ),
    **{
        f"rows-{n}": Layout(
            n,
            3,
            _row(n, 1),
            _row(n, 3),
            f"impartial 3x{n}: {n} pawns each on the outer rows of a {n}x3 board",
            ROWS_VALUES[n],
        )
        for n in range(1, 7)
    },
    **{
        f"fig10-{n}": Layout(
            n,
            3,
            _row(n, 1),
            "a3",
            f"Fig. 10 as read here: {n} White pawns, an empty row, one Black pawn",
            FIG10_VALUES.get(n),
            FIG10_POSITIONS.get(n),
        )
        for n in range(1, 6)
    },
    "star2": Layout(4, 2, "a1 b2", "d1 c2", "a smallest position of value *2 (4 pawns)", "*2"),
    **{
        f"rows-{n}+{k}": Layout(
            n + k,
            3,
            _row(n, 1),
            _row(n + k, 3),
            f"rows-{n} with {k} more orange: {n} blue on rank 1, {n + k} orange on rank 3",
        )
        for k in EXTRA_ORANGE
        for n in EXTRA_BLUE
    },
    **{f"ups-{count}": _ups(count) for count in range(1, 6)},
}
