"""Legionnaires in the terminal: the pawns on their board, and how many each side has left
(protocols.drawing)."""

from __future__ import annotations

from protocols.drawing import Marks, Picture, Segment, StateView, grid, mark_of, piece, styled


def draw(state: StateView, marks: Marks, colour: bool) -> Picture:
    owners = {sq: side for side, squares in state["pawns"].items() for sq in squares}

    def cell(square: str) -> tuple[str, str]:
        owner = owners.get(square)
        content = piece(owner, colour) if owner else ""
        return content, styled(owner, mark_of(square, marks))

    rows = grid(state["width"], state["height"], cell, 3, colour)
    counts = {side: len(squares) for side, squares in state["pawns"].items()}
    rows.append([Segment(f"pawns: blue {counts['blue']}, orange {counts['orange']}", "label")])
    return rows
