"""Leagues: one rating over the games of many tournaments and matches (`referee league`).

`config` reads and writes a league's `league.toml`; `index` is its SQLite index of games, bots,
versions and ratings; `discovery` reads the sources into it incrementally; `rating` fits every
game (`elo_fit`) with bootstrap intervals (`elo_intervals`), which are pure numbers importing
nothing of tournaments or the web; `queries` reads pages of rows for the dashboard.
"""
