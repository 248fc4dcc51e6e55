"""The options of a tic-tac-toe game: none, validated like every game's."""

from __future__ import annotations

from protocols.options import GameOptions


class TicTacToeOptions(GameOptions):
    """Tic-tac-toe has no options; the model exists because every game validates its own."""
