"""Lasker Morris: Nine Men's Morris with 10 stones a side and Lasker's choice to place or move.

A built-in game's package (the shape of every game, protocols/__init__.py): this module names
the game and imports nothing, so the registry finds the built-in games without loading rules.
"""

NAME = "lasker-morris"
ALIASES: tuple[str, ...] = ("laskermorris",)
