"""What the staff can do to the ladder, as store functions (the staff page and the command line
call them): pause and resume the scheduling, re-run a game, disqualify a version, and see the
games running and waiting. Each change is one transaction with its entry in the audit log.

- Paused: no game starts (neither a new one nor one waiting); the games being played finish
  and count. Resuming starts them again where they stood.
- A re-run is a new pending game (kind `rerun`) of the same two versions, colours, seed and
  opening as a finished game, which becomes `void` at once (its result no longer counts; the
  re-run's, once played, does). `replaces` names it. Once the ladder is closed (the deadline,
  the pin) no game is re-run: nothing would play it.
- A disqualified version plays no more: its waiting games are withdrawn, a game of it being
  played finishes. Its results stay: they were played by the rules, and taking them away would
  move the ratings of every version it met after the fact; it is no longer ranked. Once the
  final's versions are pinned, no version is disqualified: the final plays them as pinned.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from referee.arena.audit import note
from referee.arena.deadline import PINNED, ladder_closed
from referee.arena.rows import Game, GameKind, VersionStatus
from referee.arena.staff_actions import PAUSED, is_on, switch
from referee.arena.store import get_state, stamp, transaction

RERUN_CLOSED = (
    "No game is re-run once the ladder is closed (its result would stop counting and no game"
    " would replace it)"
)
DISQUALIFY_PINNED = (
    "The final's versions are pinned: the final plays them as pinned, and a disqualification"
    " now would not take a version out of it. Settle it in the grades (grades.csv) instead."
)


class ControlError(ValueError):
    """A staff action that cannot be done as asked; the message says why."""


def is_paused(db: sqlite3.Connection) -> bool:
    return is_on(db, PAUSED)


def set_paused(db: sqlite3.Connection, now: datetime, actor: int | None, paused: bool) -> None:
    """Pause (or resume) the scheduling: the staff page's switch (staff_actions), audited."""
    switch(db, now, actor, PAUSED, paused)


def rerun_game(
    db: sqlite3.Connection,
    now: datetime,
    actor: int | None,
    game_id: int,
    *,
    deadline: datetime | None = None,
) -> int:
    """Re-run finished game `game_id`: its result stops counting and a new pending game of
    kind `rerun` replaces it; the new game's id. `ControlError` for a game not finished, one
    of a version disqualified since, or once the ladder is closed (`deadline`: `[deadline]
    at`; the pin): no game would play the re-run, and the old result would be lost for
    nothing."""
    with transaction(db):
        closed = ladder_closed(db, deadline, now)
        if closed is not None:
            raise ControlError(f"{RERUN_CLOSED}: {closed}")
        row = db.execute(f"SELECT {Game.COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise ControlError(f"no game {game_id}")
        game = Game.of(row)
        if game.state != "done":
            raise ControlError(f"game {game_id} is {game.state}: only a finished game is re-run")
        barred = db.execute(
            "SELECT COUNT(*) FROM versions WHERE id IN (?, ?) AND status = ?",
            (game.blue, game.orange, VersionStatus.DISQUALIFIED.value),
        ).fetchone()[0]
        if barred:
            raise ControlError(f"game {game_id}: one of its versions is disqualified")
        (new,) = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM games").fetchone()
        db.execute(
            "INSERT INTO games (id, kind, blue, orange, seed, opening, attempt, created_at,"
            " replaces) SELECT ?, ?, blue, orange, seed, opening, 1, ?, id FROM games"
            " WHERE id = ?",
            (new, GameKind.RERUN.value, stamp(now), game_id),
        )
        db.execute(
            "UPDATE games SET state = 'void', detail = ? WHERE id = ?",
            (f"re-run as game {new}: this result no longer counts", game_id),
        )
        note(db, now, actor, "rerun-game", f"game {game_id}", f"re-run as game {new}")
    return int(new)


def disqualify_version(
    db: sqlite3.Connection, now: datetime, actor: int | None, version_id: int, why: str = ""
) -> None:
    """Disqualify a version: no more games (those waiting are withdrawn), not ranked; its
    results stay. `ControlError` for no such version, one disqualified already or failed, or
    once the final's versions are pinned: the final plays the versions as pinned, so a
    disqualification then would take the version off the ladder's pages and nothing else."""
    with transaction(db):
        if get_state(db, PINNED) is not None:
            raise ControlError(DISQUALIFY_PINNED)
        row = db.execute("SELECT status FROM versions WHERE id = ?", (version_id,)).fetchone()
        if row is None:
            raise ControlError(f"no version {version_id}")
        if row[0] == VersionStatus.DISQUALIFIED:
            raise ControlError(f"version {version_id} is disqualified already")
        if row[0] == VersionStatus.FAILED:  # it never plays: nothing to take away
            raise ControlError(f"version {version_id} failed its check: it plays no game anyway")
        db.execute(
            "UPDATE versions SET status = ? WHERE id = ?",
            (VersionStatus.DISQUALIFIED.value, version_id),
        )
        db.execute(
            "UPDATE games SET state = 'void', finished_at = ?,"
            " detail = 'withdrawn: a version of it was disqualified'"
            " WHERE state = 'pending' AND (blue = ? OR orange = ?)",
            (stamp(now), version_id, version_id),
        )
        db.execute("UPDATE ratings SET rank = NULL WHERE version_id = ?", (version_id,))
        note(db, now, actor, "disqualify-version", f"version {version_id}", why or None)


def running_count(db: sqlite3.Connection) -> int:
    """The games being played now."""
    return int(db.execute("SELECT COUNT(*) FROM games WHERE state = 'running'").fetchone()[0])


def queue(db: sqlite3.Connection) -> list[Game]:
    """The games being played (oldest first), then those waiting, in the order they start."""
    rows = db.execute(
        f"SELECT {Game.COLUMNS} FROM games WHERE state IN ('running', 'pending')"
        " ORDER BY state = 'pending', replaces IS NULL, id"
    )
    return [Game.of(r) for r in rows]
