"""Each game's board in the terminal: the game's own drawing (its `board` module, a picture of
styled text: protocols.drawing) in rich's colours, the same for every game, with a legend of the
last move's marks.

These are the terminal twins of the games' web renderers: the same `state_json` in, a picture
out, with the last move highlighted (where it came from, where it went, what it took). A game
without a `board` module is shown by the `text` rows of its `state_json` (docs/new-game.md).

Without colour (output piped, NO_COLOR, TERM=dumb) a board is drawn with `colour=False`: each
side's pieces carry its letter, and the legend names the squares the last move touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from protocols import UnknownGame, parts
from protocols.drawing import Picture
from referee.replay import Marks

StateView = Mapping[str, Any]

MARK_BACKGROUND = {"to": "on yellow4", "removed": "on red3", "from": "on grey35"}
# The rich style of each style name a game's drawing uses (protocols/drawing.py).
STYLES = {
    "blue": "bold bright_blue",
    "orange": "bold dark_orange",
    "blue-area": "bright_blue",
    "orange-area": "dark_orange",
    "neutral": "bold white",
    "line": "grey50",
    "label": "dim",
    **MARK_BACKGROUND,
    "square": "on grey15",
    "square-alt": "on grey23",
}


def rich_style(names: str) -> str:
    """The rich style of a segment's style names, in their order (a later background wins)."""
    return " ".join(STYLES[name] for name in names.split() if name in STYLES)


def picture_text(picture: Picture) -> Text:
    """A game's picture as rich text: its rows, one a line."""
    text = Text()
    for number, row in enumerate(picture):
        if number:
            text.append("\n")
        for segment in row:
            text.append(segment.text, style=rich_style(segment.style))
    return text


def _legend(marks: Marks, colour: bool) -> Text:
    text = Text()
    text.append("last move: ", style="dim")
    for kind, label in (("from", "from"), ("to", "to"), ("removed", "taken")):
        if colour:
            text.append(f" {label} ", style=MARK_BACKGROUND[kind])
            text.append(" ")
        elif marks.get(kind):  # no background to show it: name the squares
            text.append(f"{label} {' '.join(marks[kind])}  ")
    return text if any(marks.values()) else Text()


def _text_rows(state: StateView) -> Text:
    """A game without a drawing of its own: its `text` rows when its state_json has them."""
    rows = state.get("text")
    if isinstance(rows, list) and all(isinstance(row, str) for row in rows):
        return Text("\n".join(rows))
    return Text(str(dict(state)))


def draw_board(game: str, state: StateView, marks: Marks, colour: bool = True) -> Text:
    """The board of `game` in `state`, with the last move's squares highlighted and a legend;
    `colour=False` for a console without colour, where letters tell the sides apart."""
    try:
        board = parts.module(game, parts.BOARD)
    except UnknownGame:
        board = None
    except parts.PartNotLoadable as exc:  # a plug-in's broken drawing: its text view, and why
        text = _text_rows(state)
        text.append(f"\n{exc}", style="dim")
        return text
    if board is None:
        return _text_rows(state)
    text = picture_text(board.draw(state, marks, colour))
    legend = _legend(marks, colour)
    if legend.plain:
        text.append("\n")
        text.append(legend)
    return text
