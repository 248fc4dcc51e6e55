"""Lasker Morris in the terminal: the three squares and their points, the stones in hand and the
count towards the no-removal draw (protocols.drawing)."""

from __future__ import annotations

from protocols.drawing import Marks, Picture, Segment, StateView, mark_of, piece, styled

_MORRIS = """\
7 +-----------+-----------+
  |           |           |
6 |   +-------+-------+   |
  |   |       |       |   |
5 |   |   +---+---+   |   |
  |   |   |       |   |   |
4 +---+---+       +---+---+
  |   |   |       |   |   |
3 |   |   +---+---+   |   |
  |   |       |       |   |
2 |   +-------+-------+   |
  |           |           |
1 +-----------+-----------+
  a   b   c   d   e   f   g"""
_LINE_CHARS = str.maketrans({"-": "─", "|": "│"})


def draw(state: StateView, marks: Marks, colour: bool) -> Picture:
    points = state["points"]
    rows: Picture = []
    for row, line in enumerate(_MORRIS.splitlines()):
        segments = []
        for col, char in enumerate(line):
            if char != "+":
                segments.append(Segment(char.translate(_LINE_CHARS), "line"))
                continue
            name = f"{'abcdefg'[(col - 2) // 4]}{7 - row // 2}"
            owner = points[name]
            text = piece(owner, colour) if owner else "·"
            segments.append(Segment(text, styled(owner or "line", mark_of(name, marks))))
        rows.append(segments)
    hands = state["hands"]
    for side in ("blue", "orange"):
        stones = piece(side, colour) * hands[side]
        rows.append(
            [Segment(f"{side} in hand: ", side), Segment(f"{stones} ({hands[side]})", side)]
        )
    rows.append([Segment(f"plies without a removal: {state['plies_without_removal']}", "label")])
    return rows
