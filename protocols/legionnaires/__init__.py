"""Legionnaires (Boardman): pawns slide diagonally, then capture like a chess king.

A built-in game's package (the shape of every game, protocols/__init__.py): this module names
the game and imports nothing, so the registry finds the built-in games without loading rules.
"""

NAME = "legionnaires"
ALIASES: tuple[str, ...] = ()
