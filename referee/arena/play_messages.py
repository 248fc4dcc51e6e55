"""What the arena's server and its game workers say to each other (play_pool.py on the server's
side, play_worker.py in each worker): one JSON object a line, each told apart by its `kind`.

To a worker, on its standard input: its `Setup` first (where its bots run: the host the server
chose, remade there), then `Play` a game's order and `Stop` it. From a worker, on its standard
output: `Ready` (or why it cannot play), then for each game its record lines as they are
written (`RecordLine`), `Decided` once the result is known (while the bots close) and `Ended`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from referee.isolation import IsolationSettings
from referee.match.order import GameOrder
from referee.records import Header, Ply, RecordLine, Result, ply_data

MAX_MESSAGE = 64 * 1024 * 1024  # bytes: a record line or a game's order is far smaller
CHUNK = 65536  # bytes read from a pipe at once


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def encoded(self) -> bytes:
        return self.model_dump_json().encode("utf-8") + b"\n"


class Setup(_Message):
    """The host a worker plays on: the isolation chosen from `isolation`, hiding `hidden`
    (the arena's folder), a referee error's traceback written to `log`."""

    kind: Literal["setup"] = "setup"
    isolation: IsolationSettings
    hidden: list[Path]
    log: Path | None


class Play(_Message):
    kind: Literal["play"] = "play"
    id: int  # the pool's number of the game, in every message about it
    order: GameOrder


class Stop(_Message):
    """Stop game `id` now: it ends as `interrupted`, its result line sent as usual."""

    kind: Literal["stop"] = "stop"
    id: int


class Ready(_Message):
    """The worker's host is chosen (`refused`: why it could not be)."""

    kind: Literal["ready"] = "ready"
    refused: str | None = None


class Line(_Message):
    kind: Literal["line"] = "line"
    id: int
    line: RecordLine


class Decided(_Message):
    kind: Literal["decided"] = "decided"
    id: int


class Ended(_Message):
    """Game `id` is over, its result line sent; `error`: a referee error outside the match
    (its traceback in the worker's log), and the game has no result."""

    kind: Literal["ended"] = "ended"
    id: int
    error: str | None = None


ToWorker = Annotated[Setup | Play | Stop, Field(discriminator="kind")]
FromWorker = Annotated[Ready | Line | Decided | Ended, Field(discriminator="kind")]
TO_WORKER: TypeAdapter[Setup | Play | Stop] = TypeAdapter(ToWorker)
FROM_WORKER: TypeAdapter[Ready | Line | Decided | Ended] = TypeAdapter(FromWorker)


def record_line(game: int, line: Header | Ply | Result) -> bytes:
    """The `Line` message of `line`, made directly: a ply is sent on every move (as the record
    writes it, `ply_data`), and the models' serialiser costs more than the rest."""
    data = ply_data(line) if isinstance(line, Ply) else line.model_dump(mode="json")
    return json.dumps({"kind": "line", "id": game, "line": data}).encode("utf-8") + b"\n"
