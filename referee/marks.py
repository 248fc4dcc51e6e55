"""Which squares a move touched, so every view can highlight the last move the same way.

A mark set is `{"from": [...], "to": [...], "removed": [...]}` of square ids, worked out from the
canonical move line and the `state_json` views before and after it. Square ids are the games'
own names (`a1`, `d3`, Alak's `c`), except the L game's, which are `"x,y"` in the spec's
coordinates. The web renderers name their SVG elements with the same ids.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Marks = dict[str, list[str]]
StateView = Mapping[str, Any]


def no_marks() -> Marks:
    return {"from": [], "to": [], "removed": []}


def _lasker_morris(move: str, before: StateView, after: StateView) -> Marks:
    src, dst, removed = move.split()
    return {
        "from": [] if src in ("h1", "h2") else [src],
        "to": [dst],
        "removed": [] if removed == "r0" else [removed],
    }


def _lielow(move: str, before: StateView, after: StateView) -> Marks:
    src, dst = move.split()
    if dst == "off":
        return {"from": [src], "to": [], "removed": []}
    captured = any(s["square"] == dst for s in before["stacks"])
    return {"from": [src], "to": [dst], "removed": [dst] if captured else []}


def _legionnaires(move: str, before: StateView, after: StateView) -> Marks:
    src, dst = move.split()
    return {"from": [src], "to": [dst], "removed": [dst]}


def _l_game(move: str, before: StateView, after: StateView) -> Marks:
    side = before["to_move"]
    old = {f"{x},{y}" for x, y in before[side]}
    new = [f"{x},{y}" for x, y in after[side]]
    marks: Marks = {"from": sorted(old - set(new)), "to": new, "removed": []}
    tokens = move.split()
    if len(tokens) == 7:
        x1, y1, x2, y2 = tokens[3:]
        marks["from"].append(f"{x1},{y1}")
        marks["to"].append(f"{x2},{y2}")
    return marks


def _alak(move: str, before: StateView, after: StateView) -> Marks:
    letters = "abcdefghijklmnopqrstuvwxyz"
    captured = [
        letters[i]
        for i, (old, new) in enumerate(zip(before["points"], after["points"], strict=True))
        if old is not None and new is None
    ]
    return {"from": [], "to": [move.strip()], "removed": captured}


_BY_GAME: dict[str, Callable[[str, StateView, StateView], Marks]] = {
    "lasker-morris": _lasker_morris,
    "lielow": _lielow,
    "legionnaires": _legionnaires,
    "l-game": _l_game,
    "alak": _alak,
}


def move_marks(game: str, move: str, before: StateView, after: StateView) -> Marks:
    """The squares `move` (canonical form) touched; empty marks for a game without a rule here."""
    marker = _BY_GAME.get(game)
    if marker is None:
        return no_marks()
    return marker(move, before, after)
