"""Rich drawings of each game's board, drawn from the game's `state_json` and a move's marks.

These are the terminal twins of the web renderers (referee/web/static/games/): the same JSON in,
a picture out, with the last move highlighted (where it came from, where it went, what it took).

Colour tells the sides apart and marks the last move. Where there is none (output piped,
NO_COLOR, TERM=dumb) a board is drawn with `colour=False`: each side's pieces carry its letter,
B or O as in the games' own text boards, empty squares a dot, and the legend names the squares
the last move touched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rich.text import Text

from referee.replay import Marks

StateView = Mapping[str, Any]

OWNER_STYLE = {"blue": "bold bright_blue", "orange": "bold dark_orange"}
SIDE_LETTER = {"blue": "B", "orange": "O"}
L_STYLE = {"blue": "bright_blue", "orange": "dark_orange"}  # the L pieces fill their squares
MARK_BACKGROUND = {"to": "on yellow4", "removed": "on red3", "from": "on grey35"}
CHECKER = ("on grey15", "on grey23")


def mark_of(square: str, marks: Marks) -> str | None:
    """The strongest mark on a square: where the move went, then what it took, then its start."""
    for kind in ("to", "removed", "from"):
        if square in marks.get(kind, ()):
            return kind
    return None


def _background(square: str, marks: Marks, default: str = "") -> str:
    kind = mark_of(square, marks)
    return MARK_BACKGROUND[kind] if kind else default


def _piece(owner: str, colour: bool, glyph: str = "●") -> str:
    """How a side's piece is written: the glyph, told apart by its colour, or the side's letter."""
    return glyph if colour else SIDE_LETTER[owner]


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


# -- Lasker Morris ---------------------------------------------------------------------------

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


def lasker_morris(state: StateView, marks: Marks, colour: bool) -> Text:
    points: Mapping[str, str | None] = state["points"]
    text = Text()
    for row, line in enumerate(_MORRIS.splitlines()):
        for col, char in enumerate(line):
            if char != "+":
                text.append(char.translate(_LINE_CHARS), style="grey50")
                continue
            name = f"{'abcdefg'[(col - 2) // 4]}{7 - row // 2}"
            owner = points[name]
            style = f"{OWNER_STYLE[owner] if owner else 'grey50'} {_background(name, marks)}"
            text.append(_piece(owner, colour) if owner else "·", style=style.strip())
        text.append("\n")
    hands = state["hands"]
    for side in ("blue", "orange"):
        text.append(f"{side} in hand: ", style=OWNER_STYLE[side])
        stones = _piece(side, colour) * hands[side]
        text.append(f"{stones} ({hands[side]})\n", style=OWNER_STYLE[side])
    text.append(f"plies without a removal: {state['plies_without_removal']}", style="dim")
    return text


# -- square boards -----------------------------------------------------------------------------


def _grid(
    width: int, height: int, cell: Callable[[str], tuple[str, str]], cell_width: int, colour: bool
) -> Text:
    """A board of `width` x `height` squares, rank 1 at the bottom, file `a` on the left.

    Without colour there is no checkered background to show the squares: empty ones get a dot.
    """
    files = "".join(chr(97 + x).center(cell_width) for x in range(width))
    text = Text()
    text.append(f"   {files}\n", style="dim")
    for y in reversed(range(height)):
        text.append(f"{y + 1:>2} ", style="dim")
        for x in range(width):
            square = f"{chr(97 + x)}{y + 1}"
            content, style = cell(square)
            content = content or ("" if colour else "·")
            checker = CHECKER[(x + y) % 2]
            text.append(content.center(cell_width), style=f"{style} {checker}".strip())
        text.append(f" {y + 1}\n", style="dim")
    text.append(f"   {files}", style="dim")
    return text


def _marked(square: str, marks: Marks, content: str, style: str) -> tuple[str, str]:
    background = _background(square, marks)
    return content, f"{style} {background}".strip() if background else style


def lielow(state: StateView, marks: Marks, colour: bool) -> Text:
    stacks = {s["square"]: s for s in state["stacks"]}

    def cell(square: str) -> tuple[str, str]:
        stack = stacks.get(square)
        if stack is None:
            return _marked(square, marks, "", "")
        owner = "" if colour else SIDE_LETTER[stack["owner"]]
        label = f"{owner}{stack['height']}{'♛' if stack['king'] else ' '}"
        return _marked(square, marks, label, OWNER_STYLE[stack["owner"]])

    text = _grid(8, 8, cell, 4, colour)
    text.append("\nnumbers are stack heights; ♛ marks a king", style="dim")
    return text


def legionnaires(state: StateView, marks: Marks, colour: bool) -> Text:
    owners = {sq: side for side, squares in state["pawns"].items() for sq in squares}

    def cell(square: str) -> tuple[str, str]:
        owner = owners.get(square)
        content = _piece(owner, colour) if owner else ""
        return _marked(square, marks, content, OWNER_STYLE.get(owner or "", ""))

    text = _grid(state["width"], state["height"], cell, 3, colour)
    counts = {side: len(squares) for side, squares in state["pawns"].items()}
    text.append(f"\npawns: blue {counts['blue']}, orange {counts['orange']}", style="dim")
    return text


def _l_square(who: str | None, colour: bool) -> tuple[str, str]:
    """What one square of the L game shows, and the style of its foreground."""
    if who is not None and who in SIDE_LETTER:
        return ("████" if colour else f" {SIDE_LETTER[who] * 2} "), L_STYLE[who]
    if who == "neutrals":
        return " ◆◆ ", "bold white"
    return ("    " if colour else " ·· "), ""


def l_game(state: StateView, marks: Marks, colour: bool) -> Text:
    owner: dict[str, str] = {}
    for side in ("blue", "orange", "neutrals"):
        owner.update({f"{x},{y}": side for x, y in state[side]})
    text = Text()
    text.append("    " + "".join(f"{x}".center(4) for x in range(1, 5)) + "\n", style="dim")
    for y in range(1, 5):
        text.append(f" {y}  ", style="dim")
        for x in range(1, 5):
            square = f"{x},{y}"
            content, style = _l_square(owner.get(square), colour)
            background = _background(square, marks, CHECKER[(x + y) % 2])
            text.append(content, style=f"{style} {background}".strip())
        text.append("\n")
    text.append(f"blue L: {state['blue_name']}   orange L: {state['orange_name']}", style="dim")
    return text


def alak(state: StateView, marks: Marks, colour: bool) -> Text:
    letters = "abcdefghijklmnopqrstuvwxyz"
    text = Text()
    for i, owner in enumerate(state["points"]):
        name = letters[i]
        style = OWNER_STYLE[owner] if owner else "grey50"
        background = _background(name, marks)
        piece = _piece(owner, colour) if owner else "·"
        text.append(f" {piece} ", style=f"{style} {background}".strip())
    text.append("\n")
    for i in range(state["size"]):
        text.append(f" {letters[i]} ", style="dim")
    stones = state["stones"]
    text.append(f"\nstones: blue {stones['blue']}, orange {stones['orange']}", style="dim")
    if state["banned"]:
        text.append(f"; {state['to_move']} may not play {', '.join(state['banned'])}", style="dim")
    return text


_DRAWERS: dict[str, Callable[[StateView, Marks, bool], Text]] = {
    "lasker-morris": lasker_morris,
    "lielow": lielow,
    "legionnaires": legionnaires,
    "l-game": l_game,
    "alak": alak,
}


def draw_board(game: str, state: StateView, marks: Marks, colour: bool = True) -> Text:
    """The board of `game` in `state`, with the last move's squares highlighted and a legend;
    `colour=False` for a console without colour, where letters tell the sides apart."""
    drawer = _DRAWERS.get(game)
    if drawer is None:
        # A plug-in game: its `text` rows when its state_json has them (docs/new-game.md).
        rows = state.get("text")
        if isinstance(rows, list) and all(isinstance(row, str) for row in rows):
            return Text("\n".join(rows))
        return Text(str(dict(state)))
    text = drawer(state, marks, colour)
    legend = _legend(marks, colour)
    if legend.plain:
        text.append("\n")
        text.append(legend)
    return text
