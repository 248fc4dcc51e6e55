"""A board drawn for the terminal, as plain data: rows of text segments, each with style names.

A game's `board` module (protocols.parts) turns its `state_json` and the last move's marks into a
`Picture`; the referee's terminal views give the style names their colours (referee/views/
boards.py), the same for every game. A picture is the terminal twin of the game's web renderer:
the same JSON in, the last move highlighted (where it came from, where it went, what it took).

Colour tells the sides apart and marks the last move. Where there is none (output piped,
NO_COLOR, TERM=dumb) a board is drawn with `colour=False`: each side's pieces carry its letter
(`SIDE_LETTER`), empty squares a dot.

The style names, several to a segment separated by spaces (an unknown name is ignored):
- `blue`, `orange`: a side's piece or a text about that side;
- `blue-area`, `orange-area`: squares a side's piece fills (the L game's L pieces);
- `neutral`: a piece of neither side;
- `line`: the board's lines and its empty points;
- `label`: coordinates and notes;
- `from`, `to`, `removed`: the background of a square the last move left, reached or emptied;
- `square`, `square-alt`: the background of a board's alternating squares.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

StateView = Mapping[str, Any]  # a game's `state_json`
Marks = Mapping[str, Sequence[str]]  # "from", "to", "removed" -> the squares the last move touched

SIDE_LETTER = {"blue": "B", "orange": "O"}
CHECKER = ("square", "square-alt")
MARK_KINDS = ("to", "removed", "from")  # the strongest first


class Segment(NamedTuple):
    """A run of text (no line break) and its style names."""

    text: str
    style: str = ""


Row = list[Segment]
Picture = list[Row]


def mark_of(square: str, marks: Marks) -> str | None:
    """The strongest mark on a square: where the move went, then what it took, then its start."""
    for kind in MARK_KINDS:
        if square in marks.get(kind, ()):
            return kind
    return None


def styled(*names: str | None) -> str:
    """Style names joined, the empty and None ones left out."""
    return " ".join(name for name in names if name)


def piece(owner: str, colour: bool, glyph: str = "●") -> str:
    """How a side's piece is written: the glyph, told apart by its colour, or the side's letter."""
    return glyph if colour else SIDE_LETTER[owner]


def grid(
    width: int,
    height: int,
    cell: Callable[[str], tuple[str, str]],
    cell_width: int,
    colour: bool,
) -> Picture:
    """A board of `width` x `height` squares, rank 1 at the bottom, file `a` on the left;
    `cell(square)` gives a square's text and style names.

    Without colour there is no checkered background to show the squares: empty ones get a dot.
    """
    files = "".join(chr(97 + x).center(cell_width) for x in range(width))
    rows: Picture = [[Segment(f"   {files}", "label")]]
    for y in reversed(range(height)):
        row = [Segment(f"{y + 1:>2} ", "label")]
        for x in range(width):
            content, style = cell(f"{chr(97 + x)}{y + 1}")
            content = content or ("" if colour else "·")
            row.append(Segment(content.center(cell_width), styled(style, CHECKER[(x + y) % 2])))
        row.append(Segment(f" {y + 1}", "label"))
        rows.append(row)
    rows.append([Segment(f"   {files}", "label")])
    return rows
