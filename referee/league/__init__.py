"""Leagues: one rating over the games of many tournaments and matches (`referee league`).

`config` reads and writes a league's `league.toml`; `index` is its SQLite index of games, bots,
versions and ratings; `discovery` reads the sources into it incrementally; `rating` rates every
game by the project's one rating model (`referee.stats.rating`); `queries` reads pages of rows
for the dashboard.
"""

import os

# The fit's matrices have a few hundred rows: BLAS threads only make its solves wait for each
# other (ten times slower on a busy machine). Set before numpy is first imported (by `rating`
# and the fit it runs), where it is not already; a caller's own setting wins. Here, not in
# `referee.stats`, which tournaments load too: the setting is the league's own.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
