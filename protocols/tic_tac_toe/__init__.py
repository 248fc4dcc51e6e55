"""Tic-tac-toe, with the course referee's move notation (`a1`..`c3`) and framing.

A built-in game's package (the shape of every game, protocols/__init__.py): this module names
the game and imports nothing, so the registry finds the built-in games without loading rules.
"""

NAME = "tic-tac-toe"
ALIASES: tuple[str, ...] = ("tictactoe",)
