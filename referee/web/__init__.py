"""The web view: a read-only HTTP server (hypercorn on trio, a starlette app) and its pages.

`live.py` turns a match's record lines into pushed events, `archive.py` finds and checks record
files under the served folders, `app.py` routes requests, `server.py` runs it all, and `static/`
holds the page, the shared player and one SVG renderer per game (plain JavaScript, no build).
"""

DEFAULT_HOST = "127.0.0.1"  # this machine only
DEFAULT_PORT = 8000  # the course referee's
