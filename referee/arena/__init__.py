"""The arena: the referee as the server a course runs all term (docs/arena.md).

One folder (`folder.py`) holds everything: `arena.toml` (`config.py`), the SQLite store
(`store.py`, its tables filled by `accounts.py`, `sessions.py`, `ratelimits.py`, `audit.py` and
the parts that play games), the cookie-signing key and the uploads. `server.py` serves it: the
web pages of `web/` (starlette, jinja2 templates in `templates/`) and, in the same nursery, the
background tasks. The command line is `referee arena` (referee/commands/arena.py).
"""

import os

# The ladder's rating fit (numpy) has a few hundred rows: BLAS threads only make its solves wait
# for each other on a busy machine. Set before numpy is first imported, as the league does; a
# caller's own setting wins.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
