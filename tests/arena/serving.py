"""A real `referee arena serve` for the tests that go through its port, as a user's browser or
`referee arena submit` would."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

WAIT = 120.0  # seconds: the most the server may take to stop on a busy machine


@contextmanager
def serving(folder: Path) -> Iterator[str]:
    """`referee arena serve ar --port 0` in `folder`, until the block ends (then Ctrl-C, and
    the server must exit cleanly): the address it serves."""
    server = subprocess.Popen(
        [sys.executable, "-m", "referee", "arena", "serve", "ar", "--port", "0"],
        cwd=folder,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        url = None
        for line in server.stderr:
            if found := re.search(r"the arena: (http://\S+?)/ ", line):
                url = found.group(1)
                break
        assert url is not None, "the server never said where it listens"
        yield url
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=WAIT) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
