"""`referee course report`'s engine: what each student should see after the tournament.

For every student: their standing and every game they played, and for each game lost by their
own fault what happened in plain words: the illegal line with the position it was written in and
the rule it broke (the record's result detail and `loser_line`), a timeout with their time use,
a crash with the tail of their stderr. The HTML lives in `pages.py`.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from protocols import get_game
from protocols.base import Reason, Side
from referee.course.scheme import BASELINE_PREFIX
from referee.records import GameRecord, RecordError, read_record
from referee.tournament.report import finished_results
from referee.tournament.standings import Standing, compute_standings
from referee.tournament.store import GameRow, GameState, StoreView
from referee.verify import verify_record

STDERR_LINES = 15


@dataclass(frozen=True)
class LossExplained:
    title: str  # "illegal move", "timeout", "crash", ...
    detail: str  # the referee's verdict, as recorded
    line: str | None = None  # what the bot wrote, for a bad line
    board: str | None = None  # the position it was written in
    stderr_tail: str = ""
    times: str | None = None  # the bot's time use, for a timeout


@dataclass(frozen=True)
class GameSeen:
    """One game from one student's side."""

    number: int
    opponent: str
    colour: Side
    outcome: str  # won, lost, draw, void, not played
    how: str
    plies: int | None
    record: Path | None
    explained: LossExplained | None = None


@dataclass
class StudentFeedback:
    student: str
    standing: Standing | None
    games: list[GameSeen] = field(default_factory=list)

    @property
    def faults(self) -> int:
        return sum(1 for g in self.games if g.explained is not None)


@dataclass(frozen=True)
class TournamentFeedback:
    name: str
    game: str
    standings: list[Standing]  # everybody, the built-in baselines too
    students: list[StudentFeedback]
    # Each student's rank among the students, as the grades count it (baselines not counted).
    student_ranks: dict[str, int] = field(default_factory=dict)


def is_baseline(name: str) -> bool:
    return name.startswith(BASELINE_PREFIX)


def student_ranks(standings: Sequence[Standing]) -> dict[str, int]:
    """Each student's rank among the students: one more than the students strictly ahead (the
    built-in baselines are not counted)."""
    students = [s for s in standings if not is_baseline(s.name)]
    return {s.name: 1 + sum(other.rank < s.rank for other in students) for s in students}


def build_feedback(view: StoreView) -> TournamentFeedback:
    info = view.info()
    rows = view.games()
    standings = compute_standings(view.players(), finished_results(rows))
    by_name = {s.name: s for s in standings}
    students = [
        StudentFeedback(
            name,
            by_name.get(name),
            [seen(view, row, name) for row in rows if name in (row.blue, row.orange)],
        )
        for name in sorted(view.players())
        if not is_baseline(name)
    ]
    return TournamentFeedback(info.name, info.game, standings, students, student_ranks(standings))


def seen(view: StoreView, row: GameRow, name: str) -> GameSeen:
    colour = Side.BLUE if row.blue == name else Side.ORANGE
    opponent = row.orange if colour is Side.BLUE else row.blue
    path = view.record_path(row)
    if row.state is not GameState.FINISHED or row.reason is None:
        outcome = "void" if row.state is GameState.VOID else "not played"
        return GameSeen(row.number, opponent, colour, outcome, row.detail or "", row.plies, path)
    if row.winner is None:
        outcome = "lost" if row.reason.is_bot_fault else "draw"
    else:
        outcome = "won" if row.winner is colour else "lost"
    how = row.ending or row.reason.value
    at_fault = row.reason.is_bot_fault and row.winner is not colour
    if row.reason.is_bot_fault and not at_fault:
        how = f"the opponent's {how}"  # not this student's fault: say whose it was
    explained = None
    if at_fault and path is not None:
        explained = explain(path, colour)
    return GameSeen(row.number, opponent, colour, outcome, how, row.plies, path, explained)


def explain(path: Path, colour: Side) -> LossExplained | None:
    """Why `colour` lost this game by a fault, from its record."""
    try:
        record = read_record(path)
    except (RecordError, OSError):
        return None
    result = record.result
    if result is None:
        return None
    report = result.bots.get(colour)
    tail = "\n".join(report.stderr_tail.strip().splitlines()[-STDERR_LINES:]) if report else ""
    reason = result.reason
    if reason in (Reason.ILLEGAL_MOVE, Reason.BAD_SYNTAX):
        title = "illegal move" if reason is Reason.ILLEGAL_MOVE else "not a move"
        return LossExplained(title, result.detail, result.loser_line, position(record), tail)
    if reason is Reason.TIMEOUT:
        return LossExplained(
            "timeout", result.detail, None, position(record), tail, time_use(record, colour)
        )
    if reason in (Reason.CRASH, Reason.RESOURCE_LIMIT):
        return LossExplained("crash", result.detail, None, None, tail)
    return LossExplained(reason.value, result.detail, result.loser_line, None, tail)


def position(record: GameRecord) -> str | None:
    """The last position of the game as text: the one the faulty line was written in."""
    states = verify_record(record).states
    if not states:
        return None
    return get_game(record.header.game).render_text(states[-1])


def time_use(record: GameRecord, colour: Side) -> str:
    """A timed-out bot's moves before the timeout, each set against the limit that applied to
    it: the first move had the start-up allowance besides the move's limit and the grace, the
    later ones had not (with a game clock, the clock was the limit)."""
    times = [p.time_ms for p in record.plies if p.side is colour]
    c = record.header.time_control
    start_up = f"{c.startup_allowance:g} s for start-up"
    if c.clock_total is not None:
        limit = (
            f"the limit: a game clock of {c.clock_total:g} s + {c.clock_increment:g} s a move, "
            f"{c.grace:g} s grace a move, and {start_up} on the first, not charged"
        )
        if not times:
            return f"no move was played before the timeout; {limit}"
        return f"{len(times)} moves before it, {sum(times) / 1000:.1f} s in all; {limit}"
    per_move = f"{c.move_timeout + c.grace:g} s ({c.move_timeout:g} s + {c.grace:g} s grace)"
    first_limit = f"{c.move_timeout + c.grace + c.startup_allowance:g} s"
    if not times:
        return (
            f"no move was played before the timeout: the first move's limit was {first_limit} "
            f"({c.move_timeout:g} s + {c.grace:g} s grace + {start_up}); later moves' {per_move}"
        )
    said = [f"the first {times[0]:.0f} ms (its limit {first_limit}, with {start_up})"]
    if later := times[1:]:
        said.append(
            f"the {len(later)} after it: median {statistics.median(later):.0f} ms, slowest "
            f"{max(later):.0f} ms (their limit {per_move})"
        )
    return f"{len(times)} moves before it: " + "; ".join(said)
