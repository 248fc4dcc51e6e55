"""The defaults of an L game's draw rules: what a game given no options plays by (`rules.py`)
and what the options model offers (`options.py`).

Both import this module, and it imports nothing: the rules name their options model without
importing it at run time, so the model must not import the rules back (no import circle).
"""

from __future__ import annotations

REPETITION = 3
PLY_LIMIT = 100
