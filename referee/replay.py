"""A game record replayed through the rules into frames: the one JSON every view draws.

`build_replay(record)` re-verifies the record (referee.verify) and turns each position into a
frame: the game's own `state_json` plus the squares the move into it touched (`Game.touched`, as
marks: `{"from": [...], "to": [...], "removed": [...]}` of the game's square ids). The terminal
replay, the web view and the HTML export all draw these frames, and a live game grows the same
structure one ply at a time (`FrameBuilder`). A record whose moves break the rules still replays
up to the last legal position; `problems` says where and why it stops.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from protocols import get_game
from protocols.base import Game, Touched
from referee.openings import apply_opening
from referee.records import GameRecord, Header, Ply, Result, ResultLabel, read_chained_record
from referee.verify import verify_record

# The squares a move touched, as every view reads them (the web renderers' SVG ids are the same).
Marks = dict[str, list[str]]


def marks_of(touched: Touched) -> Marks:
    return {"from": list(touched.from_), "to": list(touched.to), "removed": list(touched.removed)}


class Frame(BaseModel):
    """One position: the game's `state_json` and the squares of the move that led to it."""

    model_config = ConfigDict(frozen=True)

    state: dict[str, Any]
    marks: Marks


class Replay(BaseModel):
    """A record with its frames (`frames[i]` is the position after `i` plies)."""

    model_config = ConfigDict(frozen=True)

    game: str
    header: Header
    plies: list[Ply]
    result: Result | None
    frames: list[Frame]
    problems: list[str]
    chain: str | None = None  # the record's final hash (None: no hash chain)
    # The result in one word (`records.result_label`: a double forfeit is no draw); None while
    # the record has no result.
    outcome: ResultLabel | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def make_frame(game: Game[Any, Any, Any], move: Any, before: Any, after: Any) -> Frame:
    """The frame of `after`, with `move` (as the rules parsed it) from `before` marked; no marks
    at the start (`move` None)."""
    touched = Touched() if move is None else game.touched(before, move)
    return Frame(state=dict(game.state_json(after)), marks=marks_of(touched))


def build_replay(record: GameRecord, chain: str | None = None) -> Replay:
    """Re-verify `record` and build its frames (`chain`: the final hash of its file, if any)."""
    verification = verify_record(record)
    frames: list[Frame] = []
    if verification.states:
        game = get_game(record.header.game)
        states = verification.states
        frames.append(make_frame(game, None, None, states[0]))
        for move, before, after in zip(verification.moves, states, states[1:], strict=False):
            frames.append(make_frame(game, move, before, after))
    return Replay(
        game=record.header.game,
        header=record.header,
        plies=record.plies,
        result=record.result,
        frames=frames,
        problems=verification.problems,
        chain=chain,
        outcome=record.result.label if record.result else None,
    )


def load_replay(path: str | os.PathLike[str]) -> Replay:
    """Read, validate and replay a record file (raises `RecordError` for a malformed file, and
    `EditedRecord` for one whose hash chain breaks)."""
    path = Path(path)  # a str is as good as a Path
    record, chain = read_chained_record(path)
    return build_replay(record, chain)


class FrameBuilder:
    """Frames of a game as it is played: feed it each accepted move line."""

    def __init__(self, header: Header) -> None:
        self.game: Game[Any, Any, Any] = get_game(header.game)
        start = self.game.initial_state(self.game.parse_options(header.options))
        self.state: Any = apply_opening(self.game, start, header.opening or [])
        self.first = make_frame(self.game, None, None, self.state)

    def push(self, move: str) -> Frame:
        """Apply a move the referee accepted; raises `IllegalMove` if the rules disagree."""
        before = self.state
        parsed = self.game.parse_move(before, move)
        self.state = self.game.apply(before, parsed)
        return make_frame(self.game, parsed, before, self.state)
