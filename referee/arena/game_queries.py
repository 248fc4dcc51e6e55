"""The games as the pages list them: each row with both sides' versions and accounts, read in
one statement (never a query per row), a page at a time (`paging.py`).

Every list takes `account`: None for every game, or an account id for that account's games
alone (a student's page, and what a student sees when others' games are hidden). The indexes
used: the primary key, walked from the newest, for every game; `games_by_blue` and
`games_by_orange` (through the account's versions) for one account's; `games_by_state` for
the queue alone. A state in the other lists is written `+g.state`, which keeps SQLite from
reading every played game through `games_by_state` and sorting them all for one page.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from protocols.base import Reason, Side
from referee.arena.paging import LARGEST_ID, PAGE_SIZE, Page, page_of
from referee.arena.rows import Game, GameState
from referee.arena.visibility import Owners

_GAME_COLUMNS = ", ".join(f"g.{name.strip()}" for name in Game.COLUMNS.split(","))
_SELECT = f"""
SELECT {_GAME_COLUMNS},
       vb.number, vb.account_id, ab.username, ab.display_name,
       vo.number, vo.account_id, ao.username, ao.display_name
FROM games g
JOIN versions vb ON vb.id = g.blue JOIN accounts ab ON ab.id = vb.account_id
JOIN versions vo ON vo.id = g.orange JOIN accounts ao ON ao.id = vo.account_id
"""
_GAME_WIDTH = len(Game.COLUMNS.split(","))
OF_ACCOUNT = (
    "(g.blue IN (SELECT id FROM versions WHERE account_id = :account)"
    " OR g.orange IN (SELECT id FROM versions WHERE account_id = :account))"
)
_BOT_FAULTS = tuple(reason.value for reason in Reason if reason.is_bot_fault)
_FAULTS = ", ".join(f"'{reason}'" for reason in _BOT_FAULTS)
# A game the account lost: the other side won, or nobody did by a fault (a double forfeit:
# neither bot started, both lose).
LOST = (
    f"+g.state = 'done' AND {OF_ACCOUNT} AND ("
    "(g.winner = 'orange' AND g.blue IN (SELECT id FROM versions WHERE account_id = :account))"
    " OR (g.winner = 'blue' AND g.orange IN (SELECT id FROM versions WHERE account_id = :account))"
    f" OR (g.winner IS NULL AND g.reason IN ({_FAULTS})))"
)
FINISHED = "+g.state IN ('done', 'void')"
QUEUE_PENDING_SHOWN = 50


@dataclass(frozen=True)
class Player:
    """One side of a game: the version that played it and whose it is."""

    version_id: int
    number: int  # the version's number for its account (v1, v2, ...)
    account_id: int
    username: str
    display_name: str


@dataclass(frozen=True)
class GameView:
    game: Game
    blue: Player
    orange: Player

    @classmethod
    def of(cls, row: tuple[Any, ...]) -> GameView:
        game = Game.of(row[:_GAME_WIDTH])
        blue_row, orange_row = row[_GAME_WIDTH : _GAME_WIDTH + 4], row[_GAME_WIDTH + 4 :]
        return cls(game, Player(game.blue, *blue_row), Player(game.orange, *orange_row))

    @property
    def id(self) -> int:
        return self.game.id

    @property
    def owners(self) -> Owners:
        return Owners(self.blue.account_id, self.orange.account_id)

    def player(self, side: Side) -> Player:
        return self.blue if side is Side.BLUE else self.orange

    def side_of(self, account_id: int) -> Side | None:
        """The side an account played (blue if both were theirs)."""
        if self.blue.account_id == account_id:
            return Side.BLUE
        return Side.ORANGE if self.orange.account_id == account_id else None

    @property
    def label(self) -> str:
        """The game's state or result in one word: pending, running, void, blue, orange, draw
        or double-forfeit (no winner, by a fault: both lose)."""
        game = self.game
        if game.state is not GameState.DONE:
            return game.state.value
        if game.winner is not None:
            return game.winner
        return "double-forfeit" if game.reason in _BOT_FAULTS else "draw"

    def outcome_for(self, account_id: int) -> str | None:
        """'won', 'lost' or 'draw' for a player of a finished game; None otherwise."""
        side = self.side_of(account_id)
        if side is None or self.game.state is not GameState.DONE:
            return None
        if self.label == "draw":
            return "draw"
        return "won" if self.game.winner == side.value else "lost"


def _views(rows: list[tuple[Any, ...]]) -> list[GameView]:
    return [GameView.of(row) for row in rows]


def game_view(db: sqlite3.Connection, game_id: int) -> GameView | None:
    row = db.execute(f"{_SELECT} WHERE g.id = :id", {"id": game_id}).fetchone()
    return None if row is None else GameView.of(row)


def page_query(where: list[str]) -> str:
    """The statement of a page of games: `where`'s conditions, newest first, from `:before`."""
    conditions = " AND ".join([*where, "g.id < :before"])
    return f"{_SELECT} WHERE {conditions} ORDER BY g.id DESC LIMIT :limit"


def _page(
    db: sqlite3.Connection, where: list[str], params: dict[str, Any], before: int | None, size: int
) -> Page[GameView]:
    start = LARGEST_ID if before is None else before
    rows = db.execute(page_query(where), {**params, "before": start, "limit": size + 1})
    return page_of(_views(rows.fetchall()), size, lambda view: view.id)


def finished_games(
    db: sqlite3.Connection,
    account: int | None = None,
    before: int | None = None,
    size: int = PAGE_SIZE,
) -> Page[GameView]:
    """Played games (done or void), newest first: every one, or `account`'s."""
    where = [FINISHED]
    if account is not None:
        where.append(OF_ACCOUNT)
    return _page(db, where, {"account": account}, before, size)


def games_of(
    db: sqlite3.Connection, account: int, before: int | None = None, size: int = PAGE_SIZE
) -> Page[GameView]:
    """Every game of `account`'s versions, in any state, newest first."""
    return _page(db, [OF_ACCOUNT], {"account": account}, before, size)


def losses_of(
    db: sqlite3.Connection, account: int, before: int | None = None, size: int = PAGE_SIZE
) -> Page[GameView]:
    """The games `account` lost, newest first."""
    return _page(db, [LOST], {"account": account}, before, size)


@dataclass(frozen=True)
class Queue:
    running: list[GameView]
    pending: list[GameView]  # the first `QUEUE_PENDING_SHOWN`, oldest first
    pending_count: int


def queue(db: sqlite3.Connection, account: int | None = None) -> Queue:
    """The games running and waiting (all, or `account`'s); call it inside one snapshot."""
    own = f" AND {OF_ACCOUNT}" if account is not None else ""
    params = {"account": account, "limit": QUEUE_PENDING_SHOWN}
    running = db.execute(
        f"{_SELECT} WHERE g.state = 'running'{own} ORDER BY g.id", params
    ).fetchall()
    pending = db.execute(
        f"{_SELECT} WHERE g.state = 'pending'{own} ORDER BY g.id LIMIT :limit", params
    ).fetchall()
    count = db.execute(
        f"SELECT count(*) FROM games g WHERE g.state = 'pending'{own}", params
    ).fetchone()[0]
    return Queue(_views(running), _views(pending), int(count))
