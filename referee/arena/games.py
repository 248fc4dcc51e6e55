"""Play one game of the ladder and commit its result.

A game taken from the store (`ladder_store.take_next`: running) becomes a task: the game, its
options and settings, its seed and opening, and each version as a seat (its command, the
protocol extensions it declared) with its folder DIR/versions/ID and content hash. The task is
played by a `PlayOrder`: as the match's `GameOrder` (`game_order`), handed to its one play
function on the host the server chose once, in one of the server's game workers (`play_pool.py`)
or in this process (`play_match`), or on the Dask cluster (`remote.py`). The record is written
to DIR/games/ID.jsonl as the game goes (on a cluster, when the worker returns it), and the
result is committed once the record is on disk (`ladder_store.finish`): `done`, or `void` with
its replay queued.

A referee error never blames a bot: inside the match it voids the game as `referee-error` (the
match writes its traceback to stderr and to DIR/arena.log, the host's log), and a failure of
ours around the match voids it too, its traceback logged here, to the same places through the
server's log.
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
from referee.cluster.orders import GameTask, Seat
from referee.match import driver
from referee.match.host import Host
from referee.match.lag import LagMonitor
from referee.match.order import GameOrder
from referee.match.recorder import Listener
from referee.match.settings import MatchSettings
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


def game_task(config: ArenaConfig, game: Game, blue: Contestant, orange: Contestant) -> GameTask:
    """The task of `game`: what any machine needs to play it exactly as scheduled."""
    return GameTask(
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
    """Plays a game's task between two contestants (blue, orange), its record written to
    `record` as the game goes; `decided` is called once the result is known."""

    def __call__(
        self,
        task: GameTask,
        players: tuple[Contestant, Contestant],
        record: Path,
        listener: Listener,
        decided: Callable[[], None],
    ) -> Awaitable[GameRecord]: ...


def game_order(task: GameTask, players: tuple[Contestant, Contestant]) -> GameOrder:
    """The match's order of `task`: each bot in its version's folder, named in the record with
    its content hash; what every way of playing the ladder's game plays."""
    blue, orange = (
        task.player_spec(seat, player.folder).model_copy(
            update={"content_hash": player.content_hash}
        )
        for seat, player in zip((task.blue, task.orange), players, strict=True)
    )
    return GameOrder(
        game=task.game,
        options=task.options,
        players=(blue, orange),  # player 1 is blue: the settings never draw the colours
        settings=MatchSettings.model_validate(task.settings),
        seed=task.seed,
        opening=tuple(task.opening),
    )


async def play_match(
    task: GameTask,
    players: tuple[Contestant, Contestant],
    record: Path,
    listener: Listener,
    decided: Callable[[], None],
    *,
    host: Host,
    lag: LagMonitor,
) -> GameRecord:
    """The task played in this process, on `host` (chosen once): its `GameOrder` handed to the
    one play function (`driver.play`)."""
    order = game_order(task, players)
    return await driver.play(
        order, host, record_path=record, listener=listener, lag_monitor=lag, on_decided=decided
    )


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
        task = game_task(config, game, blue, orange)
        record = await play(task, (blue, orange), path, listener, decided)
        assert record.result is not None
        result = record.result
    except Exception as exc:  # a bug of ours around the match: void, never blame a bot
        log.exception("game %d: a referee error outside the match voids it", game.id)
        result = Result(
            winner=None,
            reason=Reason.REFEREE_ERROR,
            detail=f"{type(exc).__name__}: {exc}",
            plies=plies,
            void=True,
            finished_at=utc_now(),
        )
    if result.reason is Reason.REFEREE_ERROR:
        log.error("game %d: a referee error voids it: %s", game.id, result.detail)
    replay = await store.write(finish, root, clock(), game, result)
    if replay is not None:
        log.info("game %d is void (%s): played again as game %d", game.id, result.why, replay.id)
    elif result.void:  # the staff must learn that this meeting is lost
        log.warning(
            "game %d (version %s against version %s) is void (%s) and is not played again: "
            "its meeting was void as often as one may be (docs/arena.md)",
            game.id, game.blue, game.orange, result.why,
        )  # fmt: skip
    return Played(result, replay)
