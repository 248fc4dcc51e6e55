"""Offline questions about the games (`referee analyse`): game values, solving, puzzle searches.

Each game's analysis has a command module here (`<game>_command.py`: its arguments and how it
runs, importing its heavy code only when it runs) and its engine beside it. The analysis imports
`protocols` (and the bots' solvers); the referee's runtime never imports this package. What the
analyses need beyond the referee comes with the optional extra `referee[analysis]` (pycgt), which
`referee analyse` checks for before it runs one.
"""
