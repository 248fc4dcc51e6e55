"""Lielow in the terminal: each stack's height on its square, kings marked (protocols.drawing)."""

from __future__ import annotations

from protocols.drawing import SIDE_LETTER, Marks, Picture, Segment, StateView, grid, mark_of, styled


def draw(state: StateView, marks: Marks, colour: bool) -> Picture:
    stacks = {s["square"]: s for s in state["stacks"]}

    def cell(square: str) -> tuple[str, str]:
        stack = stacks.get(square)
        if stack is None:
            return "", styled(mark_of(square, marks))
        owner = "" if colour else SIDE_LETTER[stack["owner"]]
        label = f"{owner}{stack['height']}{'♛' if stack['king'] else ' '}"
        return label, styled(stack["owner"], mark_of(square, marks))

    rows = grid(8, 8, cell, 4, colour)
    rows.append([Segment("numbers are stack heights; ♛ marks a king", "label")])
    return rows
