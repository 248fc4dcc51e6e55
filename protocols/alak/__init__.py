"""Alak: one-dimensional Go, Baljeu's rules and the traditional variant.

A built-in game's package (the shape of every game, protocols/__init__.py): this module names
the game and imports nothing, so the registry finds the built-in games without loading rules.
"""

NAME = "alak"
ALIASES: tuple[str, ...] = ()
