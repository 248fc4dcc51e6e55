"""The built-in bots' cached files: where they are kept, and built before a game.

The perfect bot (L game, Alak) plays from a table of every position; the search bot plays Lasker
Morris with a core compiled on the machine and exact endgame tables. Solving or compiling takes
from a second to about ten at most, so the bots keep the results on disk
(`bots/solvers/cache.py`: versioned and checked). A sandboxed bot cannot write that cache, and
sees neither the referee's HOME nor its environment, so the referee builds what is missing once,
before the first game that needs it (it is the project's own code, run unconfined), and names
the folder on the bot's command line, which also mounts it read-only in the bot's sandbox.

The location repeats `bots.solvers.cache.cache_dir()`, because the referee never imports `bots`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import trio

BUILD_TIMEOUT = 120.0  # seconds; building what one game needs takes up to about 15
_built: set[str] = set()  # (game, options, folder) already built by this process
# Those being built, by trio run (a cluster worker plays games in threads, each its own run,
# and a trio event serves one run): a game that needs tables another game of its run is
# building waits for them. Another run builds them too (the cache writes each file whole).
_building: dict[tuple[trio.lowlevel.TrioToken, str], trio.Event] = {}


def table_cache_directory() -> Path:
    """Where the built-in bots keep their solved tables."""
    explicit = os.environ.get("REFEREE_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "referee"
    return Path.home() / ".cache" / "referee"


async def prepare_tables(game: str, options: dict[str, Any]) -> None:
    """Build the built-in bots' tables (and compiled core) for `game` with `options` where
    missing; best effort (without them the perfect bot solves the game at its start, and the
    search bot plays Lasker Morris with its Python core and no endgame tables)."""
    directory = table_cache_directory()
    key = json.dumps([game, options, str(directory)], sort_keys=True)
    if key in _built:
        return
    building = (trio.lowlevel.current_trio_token(), key)
    pending = _building.get(building)
    if pending is not None:
        # Games started at once (a tournament's, the demo's): returning before the first one's
        # build is over would start the bots on a cold cache, the perfect bot solving the game
        # on its own clock.
        await pending.wait()
        return
    done = _building[building] = trio.Event()
    command = [sys.executable, "-m", "bots.solvers.cache", "--build", "--game", game]
    command += ["--options", json.dumps(options), "--cache-dir", str(directory)]
    try:
        with trio.move_on_after(BUILD_TIMEOUT):
            with contextlib.suppress(OSError):  # no Python to run: best effort
                await trio.run_process(
                    command, capture_stdout=True, capture_stderr=True, check=False
                )
        _built.add(key)  # or timed out: best effort, as a missing table is
    finally:  # cancelled: the next game that needs them builds them again
        del _building[building]
        done.set()
