"""A position as a board picture for a page, with no script: the game's own terminal drawing
(its `board` part: rows of text segments with style names, protocols/drawing.py), which the
template `_board.html` writes as a `<pre>` of spans whose classes are the style names
(arena.css colours them as the terminal does). A game without a drawing is shown by the `text`
rows of its state, or its state as JSON. The web renderer draws the same position on the
game's own page.
"""

from __future__ import annotations

import json
import logging

from protocols import UnknownGame, parts
from protocols.drawing import Picture, Segment
from referee.replay import Frame

log = logging.getLogger("referee.arena")


def picture(game: str, frame: Frame) -> Picture:
    """The board of `frame` (a position of `game`), the last move's squares marked."""
    try:
        board = parts.module(game, parts.BOARD)
    except (UnknownGame, parts.PartNotLoadable) as exc:
        log.warning("the board of %s cannot be drawn: %s", game, exc)
        board = None
    if board is not None:
        try:
            drawn: Picture = board.draw(frame.state, frame.marks, True)
            return drawn
        except Exception:  # a plug-in's drawing fails: its text view, never a broken page
            log.exception("the board of %s failed to draw", game)
    rows = frame.state.get("text")
    if isinstance(rows, list) and all(isinstance(row, str) for row in rows):
        return [[Segment(row)] for row in rows]
    return [[Segment(json.dumps(frame.state, sort_keys=True))]]
