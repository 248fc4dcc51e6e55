"""Ladder games watched live: whatever plays a game passes `watch(...)`'s listener to its match
(chained after its own, `referee.web.live.chain`), and the game's page follows it through the
site's hub (referee/web/live.py) under the game's id.

Everyone watching a game gets the same stream, so it carries no side's private parts: each
line goes through `disclosure.public_line` before the hub sees it. The game's page shows its
author's stderr once the game is over.
"""

from __future__ import annotations

import logging
from pathlib import Path

from referee.arena.disclosure import public_line
from referee.match.recorder import Listener
from referee.records import Header, Ply, Result
from referee.web.live import LiveHub

log = logging.getLogger("referee.arena")


def live_id(game_id: int) -> str:
    """The hub's id of a ladder game."""
    return str(game_id)


def watch(hub: LiveHub, game_id: int, record: Path | None = None) -> Listener:
    """A match listener that shows game `game_id` live (a replayed game's pages start over)."""
    match = hub.open_match(f"game {game_id}", match_id=live_id(game_id), record=record)

    def listener(line: Header | Ply | Result) -> None:
        try:
            shown = public_line(line)
        except Exception:  # a view's bug must never reach the game
            log.exception("live view of game %s", game_id)
            return
        match.listener(shown)

    return listener
