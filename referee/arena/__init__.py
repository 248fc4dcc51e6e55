"""The arena: the referee as the server a course runs all term (docs/arena.md).

One folder (`folder.py`) holds everything: `arena.toml` (`config.py`), the SQLite store
(`store.py`, its tables filled by `accounts.py`, `sessions.py`, `ratelimits.py`, `audit.py` and
the parts that play games), the cookie-signing key and the uploads. `server.py` serves it: the
web pages of `web/` (starlette, jinja2 templates in `templates/`) and, in the same nursery, the
background tasks. The command line is `referee arena` (referee/commands/arena.py).
"""
