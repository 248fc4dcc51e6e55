"""The L game: Edward de Bono's L pieces and two neutral pieces on a 4x4 board.

A built-in game's package (the shape of every game, protocols/__init__.py): this module names
the game and imports nothing, so the registry finds the built-in games without loading rules.
"""

NAME = "l-game"
ALIASES: tuple[str, ...] = ("lgame",)
