"""The defaults of a Lasker Morris game's draw rules: what a game given no options plays by
(`rules.py`) and what the options model offers (`options.py`).

Both import this module, and it imports nothing: the rules name their options model without
importing it at run time, so the model must not import the rules back (no import circle).
"""

from __future__ import annotations

NO_CAPTURE_LIMIT = 20
REPETITION = 3
