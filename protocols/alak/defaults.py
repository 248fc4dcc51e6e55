"""The defaults of an Alak game's options and their bounds: what a game given no options plays
by (`rules.py`) and what the options model offers and checks (`options.py`).

Both import this module, and it imports nothing: the rules name their options model without
importing it at run time, so the model must not import the rules back (no import circle).
"""

from __future__ import annotations

MAX_SIZE = 26  # one letter per point
MIN_TOURNAMENT_SIZE = 5
SIZE = 11
REPETITION = 3
PLY_LIMIT = 200
VARIANTS = ("baljeu", "traditional")  # the first is the default
