"""The terminal board of Connect Four: `draw(state_json, marks, colour)`, found by its name beside
the rules (the package's `board` module, docs/new-game.md). It returns plain data, rows of
styled text (protocols.drawing), which the referee colours like every other game's board."""

from __future__ import annotations

from protocols.drawing import Marks, Picture, Segment, StateView, grid, mark_of, piece, styled


def draw(state: StateView, marks: Marks, colour: bool) -> Picture:
    discs = state["discs"]

    def cell(square: str) -> tuple[str, str]:
        owner = discs.get(square)
        content = piece(owner, colour) if owner else ""
        return content, styled(owner, mark_of(square, marks))

    rows = grid(state["columns"], state["rows"], cell, 3, colour)
    rows.append(
        [Segment("a move is a column letter: the disc falls to its lowest empty square", "label")]
    )
    return rows
