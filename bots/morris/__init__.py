"""The Lasker Morris engine of the built-in search bot.

`board` holds the bitboard tables and the move generator, `evaluation` the tuned evaluation,
`pysearch` the search core in Python and `core.c` the same core in C (built on the machine by
`native`), `engine` the iterative deepening that drives either core, and `endgame` the exact
tables of small endings. The chooser that `python -m bots search` uses, which reads the
compiled core and the tables from the cache (`bots.solvers.cache`, which builds them with this
package), is `bots.morris_bot`, beside the other bots: so neither package imports the other.
"""
