"""Tic-tac-toe in the terminal: X for blue, O for orange, on the 3x3 board (protocols.drawing).
The marks themselves tell the sides apart, with colour or without."""

from __future__ import annotations

from protocols.drawing import Marks, Picture, Segment, StateView, grid, mark_of, styled

MARK = {"blue": "X", "orange": "O"}


def draw(state: StateView, marks: Marks, colour: bool) -> Picture:
    cells = state["cells"]

    def cell(square: str) -> tuple[str, str]:
        owner = cells[square]
        return (MARK[owner] if owner else ""), styled(owner, mark_of(square, marks))

    rows = grid(3, 3, cell, 3, colour)
    rows.append([Segment("X blue (moves first), O orange", "label")])
    return rows
