"""The ladder as `referee arena serve` runs it, all term: games scheduled, played and rated.

At start, the games a stopped (or killed) server left running are voided and queued again
(`ladder_store.recover`). Then three kinds of task share the server's nursery:

- the scheduler asks `scheduler.next_meetings` for meetings whenever a game ends, and every
  `POLL` seconds (new versions, a resume, the deadline), and adds them as pending games: up to
  `QUEUE` times `concurrency` games running or waiting, refilled once half of them are left;
- `concurrency` players each take the next pending game (`ladder_store.take_next`), play it
  (`games.play_game`: in the server's game workers, `play_pool.py`, or on the cluster) and
  commit it; a player takes its next game as
  soon as its game is decided, while the bots close and the result is committed beside it;
- the ratings are fitted again after every game that counts (`ratings.py`), off the event
  loop; games that end during a fit are taken by the next one, which waits so that fits take
  at most `FIT_SHARE` of a core (a fit of a thousand versions takes about a second).

Paused (`controls.is_paused`), nothing starts. At or after the deadline nothing new is
scheduled (`deadline.ladder_open`); the games waiting are still played, until the final's
versions are pinned (then nothing starts, and what waited is withdrawn: finalists.pin).
Stopping the server voids the games being played as interrupted, each queued again, so
nothing counts twice and nothing is lost.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import datetime

import trio

from referee.arena.controls import is_paused
from referee.arena.deadline import ladder_open
from referee.arena.folder import Arena, ArenaError
from referee.arena.games import PlayOrder, play_game
from referee.arena.ladder_store import (
    add_meetings,
    interrupt,
    queued_games,
    record_name,
    recover,
    schedule_snapshot,
    take_next,
)
from referee.arena.live_games import watch
from referee.arena.play_pool import open_pool
from referee.arena.ratings import fit, fit_key, rating_data, store_ratings
from referee.arena.rows import Game
from referee.arena.scheduler import next_meetings
from referee.cluster.address import ClusterAddress, parse_address
from referee.isolation import IsolationUnavailable, describe
from referee.match.host import Host, choose_host
from referee.records import utc_now
from referee.web.live import LiveHub

log = logging.getLogger("referee.arena")
POLL = 1.0  # seconds: how often an idle ladder looks again (new versions, a resume, the deadline)
QUEUE = 2  # games running or waiting, per game at once
FIT_SHARE = 0.25  # of a core, at most, for the ratings' fits: a long fit waits before the next
MISSING_EXTRA = "the cluster needs Dask: pip install 'referee[cluster]' here and on every worker"


@dataclass(frozen=True)
class LadderSetup:
    """Where the ladder's games are played: here on `host`, or on `cluster`."""

    host: Host | None = None
    cluster: ClusterAddress | None = None


def ladder_setup(arena: Arena, cluster: str | None = None) -> LadderSetup:
    """The host of every game played here, chosen once for the server (`ArenaError` when the
    machine cannot give the level arena.toml asks for), or the cluster's address."""
    if cluster is not None:
        try:
            address = parse_address(cluster)
        except ValueError as exc:
            raise ArenaError(f"--cluster: {exc}") from None
        if importlib.util.find_spec("distributed") is None:
            raise ArenaError(MISSING_EXTRA)
        return LadderSetup(cluster=address)
    # No bot sees the arena's folder: the store, the uploads, the records, the other versions
    # (the sandbox binds its own version's folder back over it). A referee error's traceback
    # goes to the arena's log.
    settings = arena.config.match_settings().isolation
    try:
        host = choose_host(settings, arena.paths.root, log=arena.paths.log)
    except IsolationUnavailable as exc:
        raise ArenaError(f"{arena.paths.config}: [match.isolation]: {exc}") from None
    return LadderSetup(host=host)


def concurrency_of(arena: Arena, slots: int | None = None) -> int:
    """Games at once: `[schedule] concurrency`, else the cluster's slots or this machine's cores."""
    return arena.config.schedule.concurrency or slots or os.cpu_count() or 1


class Ladder:
    """The scheduler, the players and the ratings of one arena (see the module docstring)."""

    def __init__(
        self,
        arena: Arena,
        play: PlayOrder,
        concurrency: int,
        clock: Callable[[], datetime] = utc_now,
        live: LiveHub | None = None,
    ) -> None:
        self.arena = arena
        self.live = live  # the site's hub: each game is watched live on its page
        self.store = arena.store
        self.play = play
        self.concurrency = concurrency
        self.clock = clock
        self.closing = 0  # games decided, their bots closing and results not yet committed
        self._changed = trio.Event()

    def wake(self) -> None:
        """Something changed (a game ended, games were added): look again now."""
        self._changed.set()
        self._changed = trio.Event()

    async def _wait(self) -> None:
        with trio.move_on_after(POLL):
            await self._changed.wait()

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._schedule)
            nursery.start_soon(self._rate)
            for _ in range(self.concurrency):
                nursery.start_soon(self._player)

    # -- scheduling -----------------------------------------------------------------------------

    async def _schedule(self) -> None:
        # The queue holds up to QUEUE * concurrency games, running or waiting, and is filled
        # again once no more than `concurrency` are left: the scheduler (and the snapshot it
        # reads) runs once for several games, and a player never waits for it.
        config, target = self.arena.config, QUEUE * self.concurrency
        while True:
            now = self.clock()
            # Paused, past the deadline or with the final's versions pinned: nothing new.
            if not await self.store.read(is_paused) and await self.store.read(
                ladder_open, config, now
            ):
                # Games decided but still closing hold no slot.
                queued = await self.store.read(queued_games) - self.closing
                if queued <= self.concurrency:
                    snap = await self.store.read(schedule_snapshot, now, config, target)
                    meetings = next_meetings(replace(snap, queued=max(0, queued)))
                    if meetings:
                        await self.store.write(add_meetings, now, meetings, config)
                        self.wake()
                        continue
            await self._wait()

    # -- playing --------------------------------------------------------------------------------

    async def _next_game(self) -> Game:
        while True:
            if not await self.store.read(is_paused):
                game = await self.store.write(take_next, self.clock())
                if game is not None:
                    return game
            await self._wait()

    async def _player(self) -> None:
        # As the tournament runner's workers: the next game starts once this one is decided;
        # at most one game of each player is closing at a time.
        closed: trio.Event | None = None
        async with trio.open_nursery() as closing:
            while True:
                game = await self._next_game()
                decided, done = trio.Event(), trio.Event()
                closing.start_soon(self._play_one, game, decided, done)
                await decided.wait()
                if closed is not None:
                    await closed.wait()
                closed = done

    async def _play_one(self, game: Game, decided: trio.Event, done: trio.Event) -> None:
        def on_decided() -> None:
            if not decided.is_set():
                self.closing += 1
                decided.set()

        root = self.arena.paths.root
        config = self.arena.config
        shown = (
            None if self.live is None else watch(self.live, game.id, root / record_name(game.id))
        )
        try:
            played = await play_game(
                self.store, root, config, game, self.play,
                decided=on_decided, watch=shown, clock=self.clock,
            )  # fmt: skip
            result = played.result
            log.info("game %d: %s by %s", game.id, result.label, result.why)
        except BaseException:
            with trio.CancelScope(shield=True):
                # Stopped mid-game: void it as interrupted and queue it again (nothing if its
                # result was committed already).
                await self.store.write(interrupt, self.clock(), [game.id])
            raise
        finally:
            if decided.is_set():
                self.closing -= 1
            decided.set()
            done.set()
            self.wake()

    # -- ratings --------------------------------------------------------------------------------

    async def _rate(self) -> None:
        min_games = self.arena.config.ratings.min_games
        fitted: tuple[int, ...] | None = None
        while True:
            key = await self.store.read(fit_key)
            if key != fitted:
                started = trio.current_time()
                data = await self.store.read(rating_data)
                ratings = await trio.to_thread.run_sync(fit, data, min_games, self.clock())
                await self.store.write(store_ratings, ratings)
                fitted = key
                spent = trio.current_time() - started
                await trio.sleep(spent * (1 / FIT_SHARE - 1))
            await self._wait()


@asynccontextmanager
async def open_play(arena: Arena, setup: LadderSetup) -> AsyncIterator[tuple[PlayOrder, int]]:
    """How the ladder plays its games, and how many at once, for as long as it runs."""
    if setup.cluster is None:
        assert setup.host is not None
        log.info("%s", describe(setup.host.isolation))
        concurrency = concurrency_of(arena)
        async with open_pool(setup.host, concurrency) as pool:
            log.info("playing in %d game workers of this machine", concurrency)
            yield pool, concurrency
        return
    # Deferred: the cluster (Dask's client) loads only for a server that plays on one.
    from referee.arena.remote import open_remote

    async with open_remote(setup.cluster, arena.paths.log) as remote:
        log.info("playing on the cluster %s: %d game slots", setup.cluster, remote.slots())
        yield remote, concurrency_of(arena, remote.slots())


async def run_ladder(
    arena: Arena,
    setup: LadderSetup,
    *,
    live: LiveHub | None = None,
    task_status: trio.TaskStatus[Ladder] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Recover, then run the ladder until cancelled; `task_status` gets the `Ladder`. With
    `live` (the site's hub), every game is watched live on its page."""
    voided = await arena.store.write(recover, utc_now())
    if voided:
        log.info("%d games left running by a stopped server voided and queued again", len(voided))
    async with open_play(arena, setup) as (play, concurrency):
        ladder = Ladder(arena, play, concurrency, live=live)
        task_status.started(ladder)
        await ladder.run()
