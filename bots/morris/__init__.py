"""The Lasker Morris engine of the built-in search bot.

`board` holds the bitboard tables and the move generator, `evaluation` the tuned evaluation,
`pysearch` the search core in Python and `core.c` the same core in C (built on the machine by
`native`), `engine` the iterative deepening that drives either core, `endgame` the exact
tables of small endings, and `bot` the chooser that `python -m bots search` uses.
"""
