"""The games and their wire formats: pure rules, no I/O.

Every game, built-in or plug-in, is one package of the same shape, registered by one entry point
(`protocols.registry`); its optional parts sit next to its rules and are found by their names
(`protocols.parts`):

    <game>/
      __init__.py      light: the game's NAME and ALIASES (a built-in game's registry entry)
      rules.py         the Game object, `GAME` (protocols.base)
      defaults.py      its options' defaults, read by the rules and the options model alike
      options.py       its options model (protocols.options), imported only to validate options
      evaluation.py    the search bots' model of the game (protocols.search)
      board.py         its terminal drawing, as styled text (protocols.drawing)
      renderer.js      its board in the web view and the HTML export
      rules.md         its rules page, as bot authors need it
      conformance.json what the generic conformance tests need to know about it

The referee's own games are the folders of this package; docs/new-game.md describes the shape
and the entry points for a game of one's own.
"""

from protocols.registry import (
    ALIASES_GROUP,
    BUILTIN_DISTRIBUTION,
    GAME_HELP,
    GAMES_GROUP,
    GameEntry,
    GameNotLoadable,
    UnknownGame,
    aliases,
    builtin_names,
    canonical_name,
    entries,
    entry,
    game_names,
    game_packages,
    get_game,
    refresh,
)

__all__ = [
    "ALIASES_GROUP",
    "BUILTIN_DISTRIBUTION",
    "GAMES_GROUP",
    "GAME_HELP",
    "GameEntry",
    "GameNotLoadable",
    "UnknownGame",
    "aliases",
    "builtin_names",
    "canonical_name",
    "entries",
    "entry",
    "game_names",
    "game_packages",
    "get_game",
    "refresh",
]
