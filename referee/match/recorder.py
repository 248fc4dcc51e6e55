"""A game's record as it is played: the header at the start, a line per ply, the result (and
the record of a game that could not be played at all).

Each line is written (appended and flushed) the moment it is known and told to the listener (a
live view, a cluster's coordinator), so a crash loses nothing already played.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from protocols import get_game
from protocols.base import Reason, Side
from referee.match.judge import Played, Verdict
from referee.match.order import GameOrder
from referee.match.player import Player
from referee.players import PlayerSpec
from referee.records import (
    BotReport,
    GameRecord,
    Header,
    PlayerInfo,
    Ply,
    RecordWriter,
    Result,
    TimeControl,
    utc_now,
)

Listener = Callable[[Header | Ply | Result], None]


def header_of(
    order: GameOrder,
    colours: Mapping[Side, PlayerSpec],
    options: dict[str, Any],
    level: str,
) -> Header:
    """The header of a game of `order` (its options with the game's defaults filled in),
    played at isolation `level`: the level chosen for the run, which each bot ran under
    unless its report in the result says lower."""
    s = order.settings
    return Header(
        game=order.game,
        options=options,
        seed=order.seed,
        players={
            side: PlayerInfo(
                name=p.name,
                command=p.command,
                cwd=str(p.cwd) if p.cwd else None,
                limits=p.limits.model_dump() if p.limits else None,
                content_hash=p.content_hash,
            )
            for side, p in colours.items()
        },
        time_control=TimeControl.of(s),
        started_at=utc_now(),
        opening=list(order.opening) or None,
        confinement={
            "isolation": level,
            "freeze": s.freeze,  # the policy: frozen only while pondering, after the grace
            "freeze_grace": s.freeze_grace,
            "limits": s.limits.model_dump(),
        },
    )


def result_of(verdict: Verdict, plies: int, players: Mapping[Side, Player]) -> Result:
    """The result line of `verdict`, with how each player that was opened ended."""
    reports = {
        side: BotReport(
            exit_code=bot.exit.returncode,
            killed=bot.exit.killed_by_referee,
            stderr_tail=bot.exit.stderr_tail,
            stderr_bytes=bot.exit.stderr_bytes,
            isolation=bot.isolation_level,
            isolation_note=bot.isolation_note,
            unasked=list(bot.exit.unasked),
        )
        for side in Side
        if (bot := players.get(side)) is not None and bot.exit is not None
    }
    return Result(
        winner=verdict.winner,
        reason=verdict.reason,
        ending=verdict.ending,
        detail=verdict.detail,
        loser_line=verdict.line,
        plies=plies,
        void=verdict.reason.voids_game,
        finished_at=utc_now(),
        bots=reports,
    )


class Recorder:
    """Writes one game's lines to `path` (if any) and tells `listener` (if any)."""

    def __init__(self, path: Path | None, listener: Listener | None) -> None:
        self.path = path
        self.listener = listener
        self._writer: RecordWriter | None = None
        self.header: Header | None = None
        self.plies: list[Ply] = []

    def start(self, header: Header) -> None:
        if self.path is not None:
            self._writer = RecordWriter(self.path)
        self.header = header
        self._emit(header)

    def ply(self, played: Played, cpu_ms: float | None) -> None:
        # Built from values the referee itself made: validating them again costs more than
        # the rest of the record line (and every field is given: a default is looked up).
        line = Ply.model_construct(
            type="ply",
            ply=len(self.plies) + 1,
            side=played.side,
            received=played.received,
            move=played.move,
            time_ms=round(played.elapsed * 1000, 3),
            cpu_ms=cpu_ms,
        )
        self.plies.append(line)
        self._emit(line)

    def finish(self, result: Result) -> None:
        self._emit(result)
        if self._writer is not None:
            self._writer.close()

    def _emit(self, line: Header | Ply | Result) -> None:
        if self._writer is not None:
            self._writer.write(line)
        if self.listener is not None:
            self.listener(line)


def void_game(
    order: GameOrder,
    detail: str,
    *,
    record_path: Path | None = None,
    listener: Listener | None = None,
) -> GameRecord:
    """The record of a game this machine cannot play at all (the isolation level it asks for
    is not available here): void, as `infrastructure`, its header naming the level asked."""
    game = get_game(order.game)
    options = game.parse_options(order.options).model_dump(mode="json")
    recorder = Recorder(record_path, listener)
    level = order.settings.isolation.level
    recorder.start(header_of(order, order.colours(), options, level))
    result = result_of(Verdict(None, Reason.INFRASTRUCTURE, detail), 0, {})
    recorder.finish(result)
    assert recorder.header is not None
    return GameRecord(header=recorder.header, plies=[], result=result)
