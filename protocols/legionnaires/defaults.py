"""The defaults of a Legionnaires game's options and their bounds, and the square names its
start squares are checked against: what a game given no options plays by (`rules.py`) and what
the options model offers and checks (`options.py`).

Both import this module, and it imports nothing: the rules name their options model without
importing it at run time, so the model must not import the rules back (no import circle).
"""

from __future__ import annotations

MIN_SIZE = 2
MAX_SIZE = 26  # one file letter per column
WIDTH = HEIGHT = 8  # the tournament board, the one `DEFAULT_BLUE` and `DEFAULT_ORANGE` fit
DEFAULT_BLUE = ("a6", "c6", "e6", "g6", "b7", "d7", "f7", "h7", "a8", "c8", "e8", "g8")
DEFAULT_ORANGE = ("a1", "c1", "e1", "g1", "b2", "d2", "f2", "h2", "a3", "c3", "e3", "g3")


def square_names(width: int, height: int) -> tuple[str, ...]:
    """The squares of a width x height board by their bit (`rank * width + file`): file letter
    (`a`.. left to right) and rank number (`1`.. bottom to top)."""
    return tuple(f"{chr(97 + sq % width)}{sq // width + 1}" for sq in range(width * height))


def board_name(width: int, height: int) -> str:
    """The board as a message names it: `the 8x8 board (a1..h8)`."""
    return f"the {width}x{height} board (a1..{chr(96 + width)}{height})"
