"""The L game in the terminal: the 4x4 board with both L pieces and the neutral pieces, and the
names of the L placements (protocols.drawing)."""

from __future__ import annotations

from protocols.drawing import (
    CHECKER,
    SIDE_LETTER,
    Marks,
    Picture,
    Segment,
    StateView,
    mark_of,
    styled,
)


def _square(who: str | None, colour: bool) -> tuple[str, str]:
    """What one square shows, and the style of its foreground: an L fills its squares."""
    if who is not None and who in SIDE_LETTER:
        return ("████" if colour else f" {SIDE_LETTER[who] * 2} "), f"{who}-area"
    if who == "neutrals":
        return " ◆◆ ", "neutral"
    return ("    " if colour else " ·· "), ""


def draw(state: StateView, marks: Marks, colour: bool) -> Picture:
    owner: dict[str, str] = {}
    for side in ("blue", "orange", "neutrals"):
        owner.update({f"{x},{y}": side for x, y in state[side]})
    rows: Picture = [[Segment("    " + "".join(f"{x}".center(4) for x in range(1, 5)), "label")]]
    for y in range(1, 5):
        row = [Segment(f" {y}  ", "label")]
        for x in range(1, 5):
            square = f"{x},{y}"
            content, style = _square(owner.get(square), colour)
            background = mark_of(square, marks) or CHECKER[(x + y) % 2]
            row.append(Segment(content, styled(style, background)))
        rows.append(row)
    names = f"blue L: {state['blue_name']}   orange L: {state['orange_name']}"
    rows.append([Segment(names, "label")])
    return rows
