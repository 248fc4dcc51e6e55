"""The ladder's rows made directly in the store, as the submissions, scheduler and games would
have made them: uploads and versions, games with their records on disk (tic-tac-toe, with
each bot's stderr), ratings and their history."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from protocols import get_game
from protocols.base import Reason, Side
from referee.arena import accounts
from referee.arena.folder import Arena
from referee.arena.store import stamp, transaction
from referee.records import (
    BotReport,
    Header,
    PlayerInfo,
    Ply,
    Result,
    TimeControl,
    write_lines,
)

START = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)
BLUE_WINS = ["a1", "b1", "a2", "b2", "a3"]  # blue's three in a row, column a
ORANGE_WINS = ["a1", "b1", "c3", "b2", "a3", "b3"]  # orange's, column b
DRAWN = ["a1", "b2", "c3", "b1", "b3", "a3", "c1", "c2", "a2"]


def account(db: sqlite3.Connection, username: str) -> int:
    found = accounts.by_username(db, username)
    assert found is not None
    return found.id


def add_version(
    db: sqlite3.Connection,
    account_id: int,
    *,
    status: str = "active",
    file_name: str = "bot.py",
    problem: str | None = None,
) -> int:
    """A new version of the account (numbered after its last), with its upload."""
    with transaction(db):
        number = db.execute(
            "SELECT coalesce(max(number), 0) + 1 FROM versions WHERE account_id = ?",
            (account_id,),
        ).fetchone()[0]
        upload = db.execute(
            "INSERT INTO uploads (sha256, size, name, account_id, received_at)"
            " VALUES (?, 10, ?, ?, ?)",
            ("0" * 64, file_name, account_id, stamp(START)),
        ).lastrowid
        version = db.execute(
            "INSERT INTO versions (account_id, number, upload_id, status, problem, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (account_id, number, upload, status, problem, stamp(START)),
        ).lastrowid
    assert version is not None
    return version


@dataclass(frozen=True)
class Stderr:
    blue: str = "blue's own debugging"
    orange: str = "orange's own debugging"


def record_lines(
    moves: list[str],
    stderr: Stderr = Stderr(),
    names: tuple[str, str] = ("blue bot", "orange bot"),
    result: Result | None = None,
) -> list[Header | Ply | Result]:
    """A tic-tac-toe game of `moves`, ended by the rules (or by `result`), each bot with its
    stderr and command."""
    game = get_game("tic-tac-toe")
    state = game.initial_state(game.parse_options({}))
    header = Header(
        game="tic-tac-toe",
        options={},
        seed=7,
        players={
            Side.BLUE: PlayerInfo(name=names[0], command="python3 blue_secret_bot.py"),
            Side.ORANGE: PlayerInfo(name=names[1], command="python3 orange_secret_bot.py"),
        },
        time_control=TimeControl(move_timeout=5, grace=0.5, startup_allowance=5),
        started_at=START,
    )
    lines: list[Header | Ply | Result] = [header]
    for number, move in enumerate(moves, start=1):
        side = state.to_move
        lines.append(Ply(ply=number, side=side, received=move, move=move, time_ms=3.0))
        state = game.apply(state, game.parse_move(state, move))
    bots = {
        Side.BLUE: BotReport(exit_code=0, killed=False, stderr_tail=stderr.blue, stderr_bytes=99),
        Side.ORANGE: BotReport(
            exit_code=0, killed=False, stderr_tail=stderr.orange, stderr_bytes=98
        ),
    }
    if result is None:
        outcome = game.outcome(state)
        assert outcome is not None, "the moves do not end the game"
        result = Result.of_outcome(outcome, len(moves))
    lines.append(result.model_copy(update={"bots": bots, "finished_at": START}))
    return lines


def crash_result(side: Side, plies: int, said: str) -> Result:
    """`side` crashed, its last words quoted in the verdict as the referee quotes them."""
    return Result(
        winner=side.other,
        reason=Reason.CRASH,
        detail=f"{side}: closed its output: exited with code 1; its stderr ends: {said}",
        plies=plies,
        finished_at=START,
    )


def add_game(
    arena: Arena,
    blue: int,
    orange: int,
    *,
    state: str = "done",
    lines: list[Header | Ply | Result] | None = None,
    kind: str = "ladder",
    at: datetime = START,
    detail: str | None = None,
) -> int:
    """A game between two versions; with `lines`, its record is written to DIR/games/ID.jsonl
    and its result copied into the row, as the games part commits one."""
    db = arena.store.writer
    with transaction(db):
        game_id = db.execute(
            "INSERT INTO games (kind, blue, orange, seed, state, created_at, started_at)"
            " VALUES (?, ?, ?, 7, ?, ?, ?)",
            (kind, blue, orange, state, stamp(at), stamp(at) if state != "pending" else None),
        ).lastrowid
    assert game_id is not None
    if lines is None:
        return game_id
    relative = f"games/{game_id}.jsonl"
    write_lines(arena.paths.root / relative, lines)
    result = lines[-1]
    assert isinstance(result, Result)
    with transaction(db):
        db.execute(
            "UPDATE games SET record = ?, winner = ?, reason = ?, plies = ?, finished_at = ?,"
            " detail = ? WHERE id = ?",
            (
                relative,
                result.winner.value if result.winner else None,
                result.reason.value,
                result.plies,
                stamp(at + timedelta(seconds=5)),
                detail if detail is not None else result.detail,
                game_id,
            ),
        )
    return game_id


def rate(
    db: sqlite3.Connection,
    version: int,
    rating: float,
    *,
    low: float | None = None,
    high: float | None = None,
    games: int = 12,
    points: float = 6.0,
    rank: int | None = 1,
    flags: str = "",
    at: datetime = START,
) -> None:
    """A fit's rating of a version, in `ratings` and its history (as `ratings.store_ratings`
    writes a version whose games changed)."""
    values = (version, rating, low, high, games, points, flags, rank, stamp(at))
    with transaction(db):
        for table in ("ratings", "rating_history"):
            db.execute(
                f"INSERT OR REPLACE INTO {table}"
                " (version_id, rating, low, high, games, points, flags, rank, computed_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )


def opening_json(moves: list[str]) -> str:
    return json.dumps(moves)
