"""Play one game of the ladder and commit its result.

A game taken from the store (`ladder_store.take_next`: running) becomes an order: the game, its
options and settings, its seed and opening, and each version as a seat (its command, the
protocol extensions it declared) with its folder DIR/versions/ID and content hash. The order is
played by a `PlayOrder`: here by the referee's own match (`play_match`, the one call of it), or
on the Dask cluster (`remote.py`). The record is written to DIR/games/ID.jsonl as the game goes
(on a cluster, when the worker returns it), and the result is committed once the record is on
disk (`ladder_store.finish`): `done`, or `void` with its replay queued.

A referee fault never blames a bot: inside the match it voids the game (the match logs its
traceback), and a failure of ours around the match voids it too, its traceback logged here;
both reach DIR/arena.log and stderr through the server's log.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from protocols.base import Reason
from referee.arena import preflight
from referee.arena.config import ArenaConfig
from referee.arena.folder import ArenaPaths
from referee.arena.ladder_store import finish, record_name
from referee.arena.rows import Game
from referee.arena.store import ArenaStore
from referee.cluster.orders import GameOrder, Seat
from referee.isolation import Isolation
from referee.match import LagMonitor, Listener, Match, MatchSettings
from referee.records import GameRecord, Header, Ply, Result, utc_now

log = logging.getLogger("referee.arena")


def version_folder(root: Path, version_id: int) -> Path:
    """Where version `version_id` is unpacked and built (its bot runs there): the submissions'
    `preflight.version_folder` of the arena in `root`."""
    return preflight.version_folder(ArenaPaths(root), version_id)


@dataclass(frozen=True)
class Contestant:
    """A version as a game needs it."""

    version: int
    name: str  # "alice v3": the account's username and the version's number
    command: str
    capabilities: tuple[str, ...]
    content_hash: str | None
    folder: Path

    def seat(self) -> Seat:
        return Seat(name=self.name, command=self.command, capabilities=list(self.capabilities))


def contestants(db: sqlite3.Connection, root: Path, ids: Sequence[int]) -> dict[int, Contestant]:
    """The versions `ids` as contestants (a version without a command is left out)."""
    marks = ", ".join("?" * len(ids))
    rows = db.execute(
        "SELECT v.id, a.username, v.number, v.command, v.capabilities, v.content_hash"
        f" FROM versions v JOIN accounts a ON a.id = v.account_id WHERE v.id IN ({marks})",
        tuple(ids),
    ).fetchall()
    return {
        version: Contestant(
            version=version,
            name=f"{username} v{number}",
            command=command,
            capabilities=tuple(json.loads(capabilities or "[]")),
            content_hash=content_hash,
            folder=version_folder(root, version),
        )
        for version, username, number, command, capabilities, content_hash in rows
        if command
    }


def game_order(config: ArenaConfig, game: Game, blue: Contestant, orange: Contestant) -> GameOrder:
    """The order for `game`: what any machine needs to play it exactly as scheduled."""
    return GameOrder(
        key=f"arena-{game.id}",
        number=game.id,
        game=config.game,
        options=config.game_options,
        settings=config.match_settings().model_dump(mode="json"),
        seed=game.seed,
        blue=blue.seat(),
        orange=orange.seat(),
        opening=list(game.opening or ()),
    )


class PlayOrder(Protocol):
    """Plays an order between two contestants (blue, orange), its record written to `record`
    as the game goes; `decided` is called once the result is known."""

    def __call__(
        self,
        order: GameOrder,
        players: tuple[Contestant, Contestant],
        record: Path,
        listener: Listener,
        decided: Callable[[], None],
    ) -> Awaitable[GameRecord]: ...


async def play_match(
    order: GameOrder,
    players: tuple[Contestant, Contestant],
    record: Path,
    listener: Listener,
    decided: Callable[[], None],
    *,
    isolation: Isolation,
    lag: LagMonitor,
) -> GameRecord:
    """The one call of the referee's match (the app's game use case, once there is one): the
    order played here, each bot in its version's folder, under the isolation chosen once."""
    blue, orange = (
        order.player_spec(seat, player.folder).model_copy(
            update={"content_hash": player.content_hash}
        )
        for seat, player in zip((order.blue, order.orange), players, strict=True)
    )
    match = Match(
        order.game,
        blue,
        orange,
        options=order.options,
        settings=MatchSettings.model_validate(order.settings),
        seed=order.seed,
        record_path=record,
        listener=listener,
        lag_monitor=lag,
        on_decided=decided,
        isolation=isolation,
        opening=order.opening,
    )
    return await match.play()


@dataclass(frozen=True)
class Played:
    """What became of a game: its result, and its replay if it was void and is played again."""

    result: Result
    replay: Game | None


async def play_game(
    store: ArenaStore,
    root: Path,
    config: ArenaConfig,
    game: Game,
    play: PlayOrder,
    *,
    decided: Callable[[], None] = lambda: None,
    watch: Listener | None = None,
    clock: Callable[[], datetime] = utc_now,
) -> Played:
    """Play `game` (running in the store) with `play` and commit its result."""
    path = root / record_name(game.id)
    plies = 0

    def listener(line: Header | Ply | Result) -> None:
        nonlocal plies
        plies += isinstance(line, Ply)
        if watch is not None:
            watch(line)

    try:
        found = await store.read(contestants, root, (game.blue, game.orange))
        blue, orange = found[game.blue], found[game.orange]
        order = game_order(config, game, blue, orange)
        record = await play(order, (blue, orange), path, listener, decided)
        assert record.result is not None
        result = record.result
    except Exception as exc:  # a bug of ours around the match: void, never blame a bot
        log.exception("game %d: a referee fault outside the match voids it", game.id)
        result = Result(
            winner=None,
            reason=Reason.REFEREE_FAULT,
            detail=f"{type(exc).__name__}: {exc}",
            plies=plies,
            void=True,
            finished_at=utc_now(),
        )
    if result.reason is Reason.REFEREE_FAULT:
        log.error("game %d: a referee fault voids it: %s", game.id, result.detail)
    replay = await store.write(finish, root, clock(), game, result)
    if replay is not None:
        log.info("game %d is void (%s): played again as game %d", game.id, result.why, replay.id)
    return Played(result, replay)
