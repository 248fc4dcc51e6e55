"""Lielow: stacks that move exactly as many squares as they are high, and kings to capture.

A built-in game's package (the shape of every game, protocols/__init__.py): this module names
the game and imports nothing, so the registry finds the built-in games without loading rules.
"""

NAME = "lielow"
ALIASES: tuple[str, ...] = ()
