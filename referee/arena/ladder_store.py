"""The ladder's queries: the scheduler's snapshot of the store, its meetings added as pending
games, a pending game taken to be played, a played game's result committed, and the games a
stopped server left running voided and queued again.

A game moves `pending -> running -> done | void`, one row per attempt: a void game (a referee
error, the machine failing, referee overload, the server stopping) is never played again
itself; a fresh pending game takes its place in the same transaction (`replaces` names the
void one; same versions, colours, seed and opening). A result counts only from `done`, so a
game can never count twice. Replays have limits: `MAX_REPLAYS` void attempts of one game, and a
referee error only once (a bug that voids a game tends to void its replay too); a game the
server stopped is always played again.

Seeds come from the store alone: a game's seed from its id (`game_seed`), the opening of a
meeting from the seed of its first game, so that any game can be replayed exactly.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

from protocols.base import RENAMED_REASONS, Reason
from referee.arena.config import ArenaConfig
from referee.arena.deadline import PINNED
from referee.arena.rows import Game, GameKind, GameState
from referee.arena.scheduler import Entrant, Meeting, Pair, Snapshot, pair
from referee.arena.store import get_state, parse_stamp, snapshot, stamp, transaction
from referee.openings import OpeningError, opening_for_pair
from referee.players import POSITION, is_builtin
from referee.records import Result, final_chain
from referee.tournament.store import sync_file

RECORDS = "games"
MAX_REPLAYS = 3  # void attempts of one game (the server stopping aside) before it is left void
FAULT_REPLAYS = 1  # of them, referee errors
TIMED_GAMES = 50  # the latest games whose mean length tells the scheduler how long games take
HOUR = timedelta(hours=1)
STOPPED = "the server stopped while the game was being played"


def record_name(game_id: int) -> str:
    """The record of a game, relative to the arena's folder."""
    return f"{RECORDS}/{game_id}.jsonl"


def game_seed(game_id: int) -> int:
    """The seed of game `game_id`: from its id alone, so a game can be played again."""
    return random.Random(f"arena-game:{game_id}").getrandbits(63)


# -- the scheduler's snapshot -----------------------------------------------------------------


def schedule_snapshot(
    db: sqlite3.Connection, now: datetime, config: ArenaConfig, concurrency: int
) -> Snapshot:
    """What the scheduler needs, read in one consistent view of the store."""
    with snapshot(db):
        active = db.execute(
            "SELECT v.id, r.rating, v.activated_at, COALESCE(g.live, 0) FROM versions v"
            " LEFT JOIN ratings r ON r.version_id = v.id"
            " LEFT JOIN version_games g ON g.version_id = v.id"
            " WHERE v.status = 'active' AND v.late = 0"
        ).fetchall()
        # The counts the triggers keep (store.py): a row per pair, not a row per game.
        played = db.execute(
            "SELECT p.blue, p.orange, p.live FROM pair_games p"
            " JOIN versions b ON b.id = p.blue JOIN versions o ON o.id = p.orange"
            " WHERE p.live > 0 AND b.status = 'active' AND o.status = 'active'"
        ).fetchall()
        recent = db.execute(
            "SELECT blue, orange FROM games WHERE created_at >= ? AND replaces IS NULL"
            " AND kind != 'rerun'",
            (stamp(now - HOUR),),
        ).fetchall()
        (queued,) = db.execute(
            "SELECT COUNT(*) FROM games WHERE state IN ('pending', 'running')"
        ).fetchone()
        timed = db.execute(
            "SELECT started_at, finished_at FROM games WHERE state = 'done'"
            " AND started_at IS NOT NULL ORDER BY id DESC LIMIT ?",
            (TIMED_GAMES,),
        ).fetchall()
        (draw,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()
    games_of_pair: Counter[Pair] = Counter()
    for blue, orange, count in played:
        games_of_pair[pair(blue, orange)] += count
    hour: Counter[int] = Counter(v for row in recent for v in row)
    entrants = tuple(
        Entrant(v, rating, games, hour[v], _hours_since(activated, now))
        for v, rating, activated, games in active
    )
    deadline = config.deadline.at
    return Snapshot(
        entrants=entrants,
        settings=config.schedule,
        concurrency=concurrency,
        queued=queued,
        met={p: n // 2 for p, n in games_of_pair.items()},  # a meeting is two games
        time_left=None if deadline is None else (deadline - now).total_seconds(),
        game_seconds=_mean_length(timed),
        draw=draw,
    )


def queued_games(db: sqlite3.Connection) -> int:
    """The games running or waiting to."""
    row = db.execute("SELECT COUNT(*) FROM games WHERE state IN ('pending', 'running')")
    return int(row.fetchone()[0])


def _hours_since(at: str | None, now: datetime) -> float:
    return 0.0 if at is None else max(0.0, (now - parse_stamp(at)).total_seconds() / 3600)


def _mean_length(rows: list[tuple[str, str]]) -> float | None:
    lengths = [(parse_stamp(end) - parse_stamp(start)).total_seconds() for start, end in rows]
    return sum(lengths) / len(lengths) if lengths else None


# -- adding and taking games ------------------------------------------------------------------


def add_meetings(
    db: sqlite3.Connection, now: datetime, meetings: list[Meeting], config: ArenaConfig
) -> list[int]:
    """Each meeting as two pending games (colours swapped, one opening); their ids."""
    added: list[int] = []
    with transaction(db):
        for meeting in meetings:
            first = _next_id(db)
            opening = _opening(db, config, meeting, game_seed(first))
            for offset, (blue, orange) in enumerate(meeting.games()):
                game_id = first + offset
                _insert(db, game_id, meeting.kind, blue, orange, game_seed(game_id), opening, now)
                added.append(game_id)
    return added


def _next_id(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM games").fetchone()[0])


def _insert(
    db: sqlite3.Connection,
    game_id: int,
    kind: GameKind,
    blue: int,
    orange: int,
    seed: int,
    opening: str | None,
    now: datetime,
    attempt: int = 1,
    replaces: int | None = None,
) -> None:
    db.execute(
        "INSERT INTO games (id, kind, blue, orange, seed, opening, attempt, created_at, replaces)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (game_id, kind.value, blue, orange, seed, opening, attempt, stamp(now), replaces),
    )


def _opening(
    db: sqlite3.Connection, config: ArenaConfig, meeting: Meeting, seed: int
) -> str | None:
    """The meeting's opening (JSON), when openings are on and both versions declared
    `position`; None otherwise, or when the game has no undecided opening of that length."""
    if config.schedule.openings == "none":
        return None
    rows = db.execute(
        "SELECT command, capabilities FROM versions WHERE id IN (?, ?)",
        (meeting.first, meeting.second),
    ).fetchall()
    declared = [
        is_builtin(command or "") or POSITION in json.loads(capabilities or "[]")
        for command, capabilities in rows
    ]
    if len(declared) != 2 or not all(declared):
        return None
    plies = config.schedule.opening_plies
    try:
        moves = opening_for_pair(config.game, config.game_options, seed, 0, plies=plies)
    except OpeningError:
        return None
    return json.dumps(moves) if moves else None


def take_next(db: sqlite3.Connection, now: datetime) -> Game | None:
    """The next pending game (replays and re-runs first, then the oldest), marked running;
    None when none is waiting, or once the final's versions are pinned. Pending games that can
    no longer be played (a version no longer active; for a re-run, one disqualified) are
    withdrawn first."""
    with transaction(db):
        if get_state(db, PINNED) is not None:
            return None  # the final's versions are pinned: its games alone are played
        _withdraw_unplayable(db, now)
        row = db.execute(
            f"SELECT {Game.COLUMNS} FROM games WHERE state = 'pending'"
            " ORDER BY replaces IS NULL, id LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        game = Game.of(row)
        record, started = record_name(game.id), stamp(now)
        db.execute(
            "UPDATE games SET state = 'running', started_at = ?, record = ? WHERE id = ?",
            (started, record, game.id),
        )
    return replace(game, state=GameState.RUNNING, started_at=started, record=record)


def _withdraw_unplayable(db: sqlite3.Connection, now: datetime) -> None:
    """Pending games whose versions may no longer play become void, never played."""
    db.execute(
        "UPDATE games SET state = 'void', finished_at = ?,"
        " detail = 'withdrawn: a version of it may no longer play'"
        " WHERE state = 'pending' AND ("
        "  (kind != 'rerun' AND (blue NOT IN (SELECT id FROM versions WHERE status = 'active')"
        "   OR orange NOT IN (SELECT id FROM versions WHERE status = 'active')))"
        "  OR (kind = 'rerun' AND (blue IN (SELECT id FROM versions WHERE status IN"
        "   ('disqualified', 'failed')) OR orange IN (SELECT id FROM versions WHERE status IN"
        "   ('disqualified', 'failed')))))",
        (stamp(now),),
    )


# -- results ----------------------------------------------------------------------------------


def finish(
    db: sqlite3.Connection, root: Path, now: datetime, game: Game, result: Result
) -> Game | None:
    """Commit a played game's result once its record is on disk: `done`, or `void` with a
    replay queued in the same transaction (within the limits). Returns the replay, if any."""
    path = root / record_name(game.id)
    sync_file(path)
    state = GameState.VOID if result.void else GameState.DONE
    winner = result.winner.value if result.winner is not None else None
    with transaction(db):
        changed = db.execute(
            "UPDATE games SET state = ?, winner = ?, reason = ?, detail = ?, plies = ?,"
            " finished_at = ?, chain = ? WHERE id = ? AND state = 'running'",
            (state.value, winner, result.why, result.detail, result.plies, stamp(now),
             final_chain(path), game.id),
        ).rowcount  # fmt: skip
        if not changed or not result.void or not _may_replay(db, game, result.reason):
            return None
        return _replay(db, now, game)


def _may_replay(db: sqlite3.Connection, game: Game, reason: Reason) -> bool:
    """Whether a game voided for `reason` is played again (see the module's docstring)."""
    if reason is Reason.INTERRUPTED:
        return True
    reasons = [reason.value, *_earlier_voids(db, game)]
    # A referee error, or a referee fault as the stores of older referees name it.
    faults = sum(RENAMED_REASONS.get(r, r) == Reason.REFEREE_ERROR.value for r in reasons)
    voids = len([r for r in reasons if r != Reason.INTERRUPTED.value])
    return faults <= FAULT_REPLAYS and voids <= MAX_REPLAYS


def _earlier_voids(db: sqlite3.Connection, game: Game) -> list[str]:
    """The reasons of the void attempts this game replays (its attempt is theirs plus one)."""
    reasons: list[str] = []
    at, attempt = game.replaces, game.attempt
    while at is not None and attempt > 1:
        row = db.execute("SELECT reason, replaces, attempt FROM games WHERE id = ?", (at,))
        found = row.fetchone()
        if found is None:
            break
        reasons.append(found[0] or "")
        at, attempt = found[1], found[2]
    return reasons


def _replay(db: sqlite3.Connection, now: datetime, game: Game) -> Game:
    """A fresh pending attempt of `game` (which is void now)."""
    new = _next_id(db)
    opening = json.dumps(list(game.opening)) if game.opening else None
    _insert(
        db, new, game.kind, game.blue, game.orange, game.seed, opening, now,
        attempt=game.attempt + 1, replaces=game.id,
    )  # fmt: skip
    row = db.execute(f"SELECT {Game.COLUMNS} FROM games WHERE id = ?", (new,)).fetchone()
    return Game.of(row)


def interrupt(
    db: sqlite3.Connection, now: datetime, ids: list[int] | None = None, detail: str = STOPPED
) -> list[int]:
    """The running games `ids` (None: every running game) voided as interrupted, each with a
    fresh pending attempt in its place, in one transaction; the ids voided."""
    voided: list[int] = []
    with transaction(db):
        rows = db.execute(f"SELECT {Game.COLUMNS} FROM games WHERE state = 'running'")
        for game in [Game.of(r) for r in rows.fetchall()]:
            if ids is not None and game.id not in ids:
                continue
            db.execute(
                "UPDATE games SET state = 'void', reason = ?, detail = ?, finished_at = ?"
                " WHERE id = ?",
                (Reason.INTERRUPTED.value, detail, stamp(now), game.id),
            )
            _replay(db, now, game)
            voided.append(game.id)
    return voided


def recover(db: sqlite3.Connection, now: datetime) -> list[int]:
    """At start: every game a stopped (or killed) server left running is voided as
    interrupted and queued again; none of them had counted."""
    return interrupt(db, now, None, STOPPED)
