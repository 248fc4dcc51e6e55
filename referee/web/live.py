"""Live games for the web view: record lines in, server-sent events out.

A match calls `LiveMatch.listener` with each record line as it happens. The listener replays the
move through the rules (the same frames a recorded game gets), serialises one event and hands it
to every subscriber without waiting: a browser that cannot keep up is dropped and reconnects for
a fresh snapshot, so a slow page never slows the referee. Nothing here runs between events.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from referee.match.recorder import Listener
from referee.records import Header, Ply, Result
from referee.replay import Frame, FrameBuilder

log = logging.getLogger(__name__)

QUEUE_LENGTH = 256  # events buffered per subscriber before it is dropped
KEEP_FINISHED = 50  # finished live games kept in memory (older ones are in the archive)
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")


def sse(event: str, data: Any) -> str:
    """One server-sent event; JSON never contains a raw newline, so one data line suffices."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def chain(first: Listener | None, second: Listener) -> Listener:
    """One match listener that calls `first` (if any), then `second`."""

    def both(line: Header | Ply | Result) -> None:
        if first is not None:
            first(line)
        second(line)

    return both


def now_ms() -> float:
    """Wall-clock milliseconds, comparable with a browser's `performance.timeOrigin + now()`."""
    return time.time() * 1000


class Subscribers:
    """Send channels of the pages watching something; a full or closed one is dropped."""

    def __init__(self) -> None:
        self._channels: set[trio.MemorySendChannel[str]] = set()

    def add(self) -> tuple[trio.MemorySendChannel[str], trio.MemoryReceiveChannel[str]]:
        send, receive = trio.open_memory_channel[str](QUEUE_LENGTH)
        self._channels.add(send)
        return send, receive

    def discard(self, send: trio.MemorySendChannel[str]) -> None:
        self._channels.discard(send)
        send.close()

    def publish(self, message: str) -> None:
        for send in list(self._channels):
            try:
                send.send_nowait(message)
            except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
                self.discard(send)

    def close(self) -> None:
        for send in list(self._channels):
            self.discard(send)

    def __len__(self) -> int:
        return len(self._channels)


class LiveMatch:
    """One game as it is played: its lines so far, its frames, and the pages watching it."""

    def __init__(
        self,
        match_id: str,
        title: str,
        on_change: Callable[[LiveMatch, str], None] | None = None,
        record: Path | None = None,
    ) -> None:
        self.id = match_id
        self.title = title
        self.record = record  # where its record is written, for the dashboard's list of records
        self.header: Header | None = None
        self.plies: list[Ply] = []
        self.frames: list[Frame] = []
        self.accepted_at: list[float] = []  # wall-clock ms at which each ply was accepted
        self.result: Result | None = None
        self.problems: list[str] = []
        self.subscribers = Subscribers()
        self._builder: FrameBuilder | None = None
        self._on_change = on_change
        self.watched = trio.Event()  # set when the first page subscribes

    def listener(self, line: Header | Ply | Result) -> None:
        """The match's listener: never raises, so a view problem cannot void a game."""
        try:
            self._take(line)
        except Exception as exc:  # a bug in a view must not reach the referee
            log.exception("live view of %s", self.id)
            self.problems.append(f"live view error: {type(exc).__name__}: {exc}")

    def _take(self, line: Header | Ply | Result) -> None:
        if isinstance(line, Header):
            self.header = line
            self._builder = FrameBuilder(line)
            self.frames = [self._builder.first]
            self.subscribers.publish(sse("snapshot", self.snapshot()))
            self._changed()
        elif isinstance(line, Ply):
            self.accepted_at.append(now_ms())
            self.plies.append(line)
            if len(self.subscribers):  # nobody watching: frames wait for the first page
                frame = self._frames_so_far()[-1]
                event = {
                    "ply": line.model_dump(mode="json"),
                    "frame": frame.model_dump(mode="json"),
                }
                self.subscribers.publish(sse("ply", {**event, "accepted_at": self.accepted_at[-1]}))
            self._progressed()
        else:
            self.result = line
            result = {"result": line.model_dump(mode="json"), "outcome": line.label}
            self.subscribers.publish(sse("result", result))
            self._changed()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change(self, "match")

    def _progressed(self) -> None:
        if self._on_change is not None:
            self._on_change(self, "progress")

    def _frames_so_far(self) -> list[Frame]:
        """The frames of every ply so far, replaying the plies not yet framed."""
        assert self._builder is not None, "a ply before the header"
        for ply in self.plies[len(self.frames) - 1 :]:
            self.frames.append(self._builder.push(ply.move))
        return self.frames

    def snapshot(self) -> dict[str, Any]:
        """Everything so far, in the replay JSON's shape (plus `live` and the accept times)."""
        return {
            "id": self.id,
            "title": self.title,
            "live": True,
            "game": self.header.game if self.header else None,
            "header": self.header.model_dump(mode="json") if self.header else None,
            "plies": [p.model_dump(mode="json") for p in self.plies],
            "frames": [f.model_dump(mode="json") for f in self._frames_so_far()]
            if self.header
            else [],
            "result": self.result.model_dump(mode="json") if self.result else None,
            "outcome": self.result.label if self.result else None,
            "problems": list(self.problems),
            "accepted_at": list(self.accepted_at),
            "server_time": now_ms(),
        }

    def summary(self) -> dict[str, Any]:
        """A line of the dashboard's list of live games."""
        players = {}
        if self.header is not None:
            players = {side.value: p.name for side, p in self.header.players.items()}
        result = self.result
        return {
            "id": self.id,
            "title": self.title,
            "game": self.header.game if self.header else None,
            "players": players,
            "plies": len(self.plies),
            "finished": result is not None,
            "result": result.label if result else None,
            "winner": result.winner.value if result and result.winner else None,
            "reason": result.reason.value if result else None,
            "ending": result.ending if result else None,
        }

    def subscribe(self) -> tuple[str, trio.MemorySendChannel[str], trio.MemoryReceiveChannel[str]]:
        """The snapshot event to send first, and the channel of what follows it."""
        send, receive = self.subscribers.add()
        self.watched.set()
        return sse("snapshot", self.snapshot()), send, receive


class LiveHub:
    """The live games of one server, and the dashboards that want to hear when they change."""

    def __init__(self) -> None:
        self.matches: dict[str, LiveMatch] = {}
        self.dashboards = Subscribers()
        self._numbers = itertools.count(1)

    def open_match(
        self, title: str = "", match_id: str | None = None, record: Path | None = None
    ) -> LiveMatch:
        """A new live game; pass its `listener` to `driver.play(listener=...)`. `record`, where
        the game's record is written, lets the dashboard keep that record's row in step."""
        match_id = match_id or str(next(self._numbers))
        if not ID_PATTERN.fullmatch(match_id):
            raise ValueError(f"live game id {match_id!r} must match {ID_PATTERN.pattern}")
        match = LiveMatch(
            match_id, title or f"game {match_id}", on_change=self._match_changed, record=record
        )
        replaced = self.matches.pop(match_id, None)  # a replayed game: the old pages start over
        if replaced is not None:
            replaced.subscribers.close()
        self.matches[match_id] = match
        self._forget_old()
        return match

    def get(self, match_id: str) -> LiveMatch | None:
        return self.matches.get(match_id)

    def _match_changed(self, match: LiveMatch, event: str) -> None:
        # "match": a game started or ended; "progress": one more ply (dashboards update a cell).
        if not len(self.dashboards):
            return
        if event == "progress":
            self.notify(event, {"id": match.id, "plies": len(match.plies)})
        else:
            self.notify(event, match.summary())

    def notify(self, event: str, data: Any) -> None:
        """Tell every dashboard that something changed (a game started or ended, standings)."""
        self.dashboards.publish(sse(event, data))

    def _forget_old(self) -> None:
        finished = [m for m in self.matches.values() if m.result is not None]
        for match in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            match.subscribers.close()
            del self.matches[match.id]

    def close(self) -> None:
        """End every event stream (the server is shutting down)."""
        self.dashboards.close()
        for match in self.matches.values():
            match.subscribers.close()
