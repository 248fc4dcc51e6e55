"""Moves of games played on workers, seen on the coordinator as they happen.

A worker publishes each record line it writes as a Dask event (topic `referee-lines`, see
worker_task.py); the Dask client calls `LineRouter.received` in its own thread, which hands the
line to the trio loop without waiting (`TrioToken.run_sync_soon`). There each line is given, in
order and once, to the listener of the game it belongs to: the runner's, so the live display,
`--events` and the web dashboard see the game move by move. Lines that arrive out of order or
after their game was committed are dropped; the returned record fills in whatever was not seen.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import trio
from pydantic import TypeAdapter, ValidationError

from referee.match.recorder import Listener
from referee.records import Header, Ply, RecordLine, Result

_LINE: TypeAdapter[Header | Ply | Result] = TypeAdapter(RecordLine)


@dataclass
class GameLines:
    """The lines of one game delivered so far, and to whom."""

    listener: Listener
    lines: list[Header | Ply | Result] = field(default_factory=list)

    def deliver(self, line: Header | Ply | Result) -> None:
        self.lines.append(line)
        self.listener(line)


class LineRouter:
    """Routes the workers' published lines to the listeners of the games being played."""

    def __init__(self, token: trio.lowlevel.TrioToken) -> None:
        self._token = token
        self._games: dict[str, GameLines] = {}
        self.delivered = 0  # lines given to a listener as they happened (for the record)

    def open(self, key: str, listener: Listener) -> GameLines:
        """Start routing the lines of the task `key` (trio thread)."""
        lines = self._games[key] = GameLines(listener)
        return lines

    def close(self, key: str) -> None:
        self._games.pop(key, None)

    def received(self, event: tuple[float, Any]) -> None:
        """A Dask event handler (the client's thread): hand the line to trio, never wait."""
        with suppress(trio.RunFinishedError):  # the run is over: nobody is watching
            self._token.run_sync_soon(self._route, event[1])

    def _route(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        game = self._games.get(str(message.get("key")))
        if game is None or message.get("index") != len(game.lines):
            return
        try:
            line = _LINE.validate_python(message.get("line"))
        except ValidationError:
            return  # not a line this referee can read: the returned record is what counts
        # A failing view must not end the run (an exception here would end the trio loop):
        # the returned record is what counts.
        self.delivered += 1
        with suppress(Exception):
            game.deliver(line)
