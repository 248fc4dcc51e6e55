"""The ladder's games played on a Dask cluster (`referee arena serve --cluster ADDRESS`), with
the cluster support the tournaments use (referee/cluster/, docs/cluster.md): each version's
folder is packed once (versions never change), named by its content hash, sent to the workers
that lack it, and each game is the same order the local match plays, so the same seeds give
the same games. Each worker chooses its bots' isolation; the record comes back whole when the
game ends and is written to DIR/games/ID.jsonl here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trio

from protocols import get_game
from protocols.base import Side
from referee.arena.folder import ArenaError
from referee.arena.games import Contestant
from referee.cluster.address import ClusterAddress
from referee.cluster.client import ClusterError, ClusterSession, connect
from referee.cluster.orders import GameTask
from referee.cluster.shipping import pack_folder
from referee.match.recorder import Listener
from referee.match.settings import MatchSettings
from referee.records import GameRecord, Header, PlayerInfo, TimeControl, utc_now
from referee.tournament.config import ClusterSettings


@dataclass
class RemotePlay:
    """A `PlayOrder` on the cluster: versions packed on first use, then played there."""

    session: ClusterSession
    log: Path  # where a referee error on a worker is reported: the arena's log
    digests: dict[int, str] = field(default_factory=dict)  # version id -> its pack's hash
    _packing: trio.Lock = field(default_factory=trio.Lock)

    def slots(self) -> int:
        return self.session.slots()

    async def _digest(self, player: Contestant) -> str:
        async with self._packing:  # a version packed once, even when two games ask at once
            if player.version not in self.digests:
                pack = await trio.to_thread.run_sync(pack_folder, player.folder)
                self.session.packs[pack.digest] = pack
                self.digests[player.version] = pack.digest
        return self.digests[player.version]

    async def __call__(
        self,
        task: GameTask,
        players: tuple[Contestant, Contestant],
        record: Path,
        listener: Listener,
        decided: Callable[[], None],
    ) -> GameRecord:
        blue, orange = players
        shipped = task.model_copy(
            update={
                "blue": task.blue.model_copy(update={"digest": await self._digest(blue)}),
                "orange": task.orange.model_copy(update={"digest": await self._digest(orange)}),
            }
        )
        return await self.session.play_task(
            shipped,
            record,
            listener,
            decided,
            header=lambda: order_header(task, players),
            where=f"arena game {task.number}",
            log=self.log,
        )


def order_header(order: GameTask, players: tuple[Contestant, Contestant]) -> Header:
    """A record's header for an order whose worker never sent one (the game is void)."""
    options = get_game(order.game).parse_options(order.options)
    return Header(
        game=order.game,
        options=options.model_dump(mode="json"),
        seed=order.seed,
        players={
            side: PlayerInfo(name=p.name, command=p.command, content_hash=p.content_hash)
            for side, p in zip((Side.BLUE, Side.ORANGE), players, strict=True)
        },
        time_control=TimeControl.of(MatchSettings.model_validate(order.settings)),
        started_at=utc_now(),
        opening=order.opening or None,
    )


@asynccontextmanager
async def open_remote(address: ClusterAddress, log: Path) -> AsyncIterator[RemotePlay]:
    """The cluster at `address`, connected for as long as the ladder runs (`ArenaError` when
    it cannot be reached)."""
    async with AsyncExitStack() as stack:
        try:
            settings = ClusterSettings(address=str(address))
            session = await stack.enter_async_context(connect(address, settings))
        except (ClusterError, OSError, TimeoutError) as exc:
            raise ArenaError(f"the cluster {address}: {exc}") from None
        yield RemotePlay(session, log)
