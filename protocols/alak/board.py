"""Alak in the terminal: the line of points with their letters, the stones of each side, and a
point the side to move may not play (protocols.drawing)."""

from __future__ import annotations

from protocols.drawing import Marks, Picture, Segment, StateView, mark_of, piece, styled

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def draw(state: StateView, marks: Marks, colour: bool) -> Picture:
    points = []
    for i, owner in enumerate(state["points"]):
        text = piece(owner, colour) if owner else "·"
        points.append(Segment(f" {text} ", styled(owner or "line", mark_of(LETTERS[i], marks))))
    letters = [Segment(f" {LETTERS[i]} ", "label") for i in range(state["size"])]
    stones = state["stones"]
    notes = [Segment(f"stones: blue {stones['blue']}, orange {stones['orange']}", "label")]
    if state["banned"]:
        banned = ", ".join(state["banned"])
        notes.append(Segment(f"; {state['to_move']} may not play {banned}", "label"))
    return [points, letters, notes]
