"""The coordinator's side of a cluster: the Dask client beside the trio loop, and the `play`
function that a tournament's `Runner` calls for each game.

The Dask client runs its own event loop in its own thread. The trio side never waits on it:
submitting a game only queues a message; a finished task's callback (a Dask thread) hands the
news to trio with `TrioToken.run_sync_soon`, so a thousand games in flight wait on a thousand
trio events, not on a thousand threads; only the short fetch of a finished game's record, and
the rare blocking calls (connecting, shipping a pack), run in trio's worker threads.

A game whose worker dies or is lost comes back as a Dask error: it becomes a void result with
the reason `infrastructure` and a detail naming the worker, and the runner replays it (up to
`max_replays`). Dask's own retry of a task whose worker died is turned off on the scheduler
(`allowed_failures = 0`): the runner's replay is the only one, counted and recorded.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import trio

from protocols import get_game
from protocols.base import Reason, Side
from referee.cluster.address import ClusterAddress
from referee.cluster.live import GameLines, LineRouter
from referee.cluster.orders import KEY_PREFIX, CheckTask, GameTask, Seat, WorkerReturn, game_task
from referee.cluster.shipping import Pack, PackError, cached_digests, pack_folder, store_pack
from referee.cluster.worker_task import LINES_TOPIC, run_checks, run_game
from referee.match.errors import report_referee_error
from referee.match.host import run_log
from referee.match.lag import LagMonitor
from referee.match.recorder import Listener
from referee.records import (
    GameRecord,
    Header,
    PlayerInfo,
    Ply,
    Result,
    TimeControl,
    read_record,
    utc_now,
    write_lines,
)
from referee.tournament.config import ClusterSettings, LoadedConfig
from referee.tournament.preflight import StartCheck
from referee.tournament.roster import Roster
from referee.tournament.schedule import ScheduledGame

SLOTS_RESOURCE = "games"  # the Dask worker resource that counts a worker's game slots
MAX_SHIPPING_ROUNDS = 5  # a worker that keeps lacking a pack it was sent: void, not a loop
FETCHES_AT_ONCE = 8  # finished records fetched from the workers at once
RECONNECTING = frozenset({"connecting", "newly-created"})  # Client.status while it reconnects
RECONNECT_POLL = 1.0  # seconds


class ClusterError(Exception):
    """The cluster cannot be used for this tournament; the message says why."""


@dataclass
class ClusterSession:
    """A connected cluster and what this tournament shipped to it."""

    client: Any  # distributed.Client
    token: trio.lowlevel.TrioToken
    router: LineRouter
    seats: dict[str, Seat]
    packs: dict[str, Pack]
    # (worker, content hash) of every pack sent during this run: what a changed bot costs.
    shipped: list[tuple[str, str]] = field(default_factory=list)
    _shipping: dict[tuple[str, str], trio.Event] = field(default_factory=dict)
    _fetching: trio.CapacityLimiter = field(
        default_factory=lambda: trio.CapacityLimiter(FETCHES_AT_ONCE)
    )

    def slots(self) -> int:
        """The game slots of the workers connected now."""
        workers = self.client.scheduler_info()["workers"].values()
        return int(sum(w.get("resources", {}).get(SLOTS_RESOURCE, 0) for w in workers))

    def workers(self) -> int:
        """The workers connected now."""
        return len(self.client.scheduler_info()["workers"])

    # -- shipping -------------------------------------------------------------------------

    async def ship_all(self) -> None:
        """Send every pack to every connected worker that does not hold it yet."""
        if not self.packs:
            return
        held: dict[str, list[str]] = await trio.to_thread.run_sync(self.client.run, cached_digests)
        for worker, digests in held.items():
            lacking = [d for d in self.packs if d not in digests]
            if lacking:
                await self.ship(worker, lacking)

    async def ship(self, worker: str, digests: list[str]) -> None:
        """Send `digests` to `worker`, once even when several games ask at the same time."""
        for digest in digests:
            pending = self._shipping.get((worker, digest))
            if pending is not None:
                await pending.wait()
                continue
            done = self._shipping[(worker, digest)] = trio.Event()
            try:
                sent = await trio.to_thread.run_sync(
                    partial(self.client.run, workers=[worker]),
                    store_pack,
                    digest,
                    self.packs[digest].data,
                )
                if sent.get(worker):
                    self.shipped.append((worker, digest))
            finally:
                done.set()
                # Sent (or failed): a later game that lacks it again asks again.
                del self._shipping[(worker, digest)]

    # -- one game -------------------------------------------------------------------------

    async def play(
        self,
        loaded: LoadedConfig,
        game: ScheduledGame,
        record: Path,
        listener: Listener,
        lag: LagMonitor,
        decided: Callable[[], None] = lambda: None,
        *,
        roster: Roster,
    ) -> GameRecord:
        """A `PlayGame` for the runner (with the run's `roster`): the game played on a worker,
        its record written here."""
        task = game_task(loaded, game, "", self.seats)
        return await self.play_task(
            task,
            record,
            listener,
            decided,
            header=lambda: _header(loaded, roster, game),
            where=f"game {game.number} of {loaded.config.name}",
            log=run_log(loaded.directory),
        )

    async def play_task(
        self,
        task: GameTask,
        record: Path,
        listener: Listener,
        decided: Callable[[], None],
        header: Callable[[], Header],
        *,
        where: str,
        log: Path,
    ) -> GameRecord:
        """Play `task` (its key is made here, one per try) on a worker and write its record
        to `record`; a game that came back without one is void, its record begun by `header`
        unless the worker's own header line arrived. A bug of ours on the worker is reported
        as the game `where` is, its traceback in `log`."""
        lines: GameLines | None = None
        problem: tuple[Reason, str] | None = None
        for _ in range(MAX_SHIPPING_ROUNDS):
            key = f"{KEY_PREFIX}-{task.number}-{uuid.uuid4().hex[:16]}"
            order = task.model_copy(update={"key": key})
            lines = self.router.open(key, listener)
            try:
                returned = await self._run(run_game, order.model_dump(mode="json"), key)
            except (Exception, asyncio.CancelledError) as exc:  # a worker or the network failed
                problem = lost_game(exc)
                if problem[0] is Reason.REFEREE_ERROR:  # a bug of ours on the worker: loud
                    detail = report_referee_error(exc, f"{where}, on a worker", log)
                    problem = (problem[0], f"on the worker: {detail}")
                await self._reconnected()
                break
            finally:
                self.router.close(key)
            if returned.record is not None:
                decided()
                return _commit(record, returned.record, lines, listener)
            try:
                await self.ship(returned.worker, returned.missing)
            except Exception as exc:
                problem = (Reason.INFRASTRUCTURE, f"sending bots to {returned.worker}: {exc}")
                break
        else:
            problem = (Reason.INFRASTRUCTURE, "a worker kept lacking the bots it was sent")
        assert lines is not None and problem is not None
        decided()
        return _void_record(header, record, lines, *problem)

    async def _reconnected(self) -> None:
        """Wait while the client reconnects to its scheduler: the games in flight are lost
        (void, replayed), but no further game is sent to burn its replays meanwhile."""
        while self.client.status in RECONNECTING:
            await trio.sleep(RECONNECT_POLL)

    async def check_bots(
        self,
        loaded: LoadedConfig,
        names: list[str],
        concurrency: int,
        opening: Sequence[str] = (),
    ) -> list[StartCheck]:
        """The pre-flight check (`preflight.py`) of the bots `names`, run on a worker, as in
        a game from `opening`."""
        config = loaded.config
        order = CheckTask(
            game=config.game,
            options=config.game_options,
            settings=config.match_settings().model_dump(mode="json"),
            seats=[self.seats[name] for name in names],
            concurrency=concurrency,
            opening=list(opening),
        )
        for _ in range(MAX_SHIPPING_ROUNDS):
            key = f"{KEY_PREFIX}-check-{uuid.uuid4().hex[:16]}"
            try:
                returned = await self._run(run_checks, order.model_dump(mode="json"), key)
                if not returned.missing:
                    return [StartCheck(**check) for check in returned.checks]
                await self.ship(returned.worker, returned.missing)
            except (Exception, asyncio.CancelledError) as exc:
                # The cluster, not the bots, failed: say so and let the games judge them.
                problem = f"the cluster could not check it: {lost_game(exc)[1]}"
                return [StartCheck(name, problem, machine_failed=True) for name in names]
        problem = "the cluster could not check it: a worker kept lacking the bots it was sent"
        return [StartCheck(name, problem, machine_failed=True) for name in names]

    async def _run(self, task: Callable[..., Any], payload: Any, key: str) -> WorkerReturn:
        future = self.client.submit(
            task,
            payload,
            key=key,
            resources={SLOTS_RESOURCE: 1},
            pure=False,
            retries=0,
        )
        finished = trio.Event()
        token = self.token

        def on_done(_: Any) -> None:  # a Dask thread
            with suppress(trio.RunFinishedError):
                token.run_sync_soon(finished.set)

        future.add_done_callback(on_done)
        try:
            await finished.wait()
        except BaseException:
            # Cancelled (Ctrl-C): a game not yet started is taken off the queue; one being
            # played is stopped by its worker (worker_task.py), and its result is not kept.
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(future.cancel)
            raise
        try:
            data = await trio.to_thread.run_sync(future.result, limiter=self._fetching)
        finally:
            future.release()
        return WorkerReturn.model_validate(data)


def lost_game(exc: BaseException) -> tuple[Reason, str]:
    """The void reason and detail for a task that did not come back with a record."""
    name = type(exc).__name__
    worker = getattr(getattr(exc, "last_worker", None), "address", None)
    where = f" (worker {worker})" if worker else ""
    if name == "KilledWorker":
        return Reason.INFRASTRUCTURE, f"the worker playing it died or was lost{where}: {exc}"
    if name in {"CancelledError", "FutureCancelledError"} or isinstance(exc, OSError):
        return Reason.INFRASTRUCTURE, f"the cluster lost the game ({name}: {exc})"
    return Reason.REFEREE_ERROR, f"on the worker: {name}: {exc}"


def _commit(path: Path, data: bytes, lines: GameLines, listener: Listener) -> GameRecord:
    """Write the worker's record here, byte for byte (atomically), and tell the listener the
    lines it has not seen."""
    aside = path.with_name(f".{path.name}.partial")
    path.parent.mkdir(parents=True, exist_ok=True)
    aside.write_bytes(data)
    os.replace(aside, path)
    record = read_record(path)
    every: list[Header | Ply | Result] = [record.header, *record.plies]
    if record.result is not None:
        every.append(record.result)
    for line in every[len(lines.lines) :]:
        listener(line)
    return record


def _void_record(
    make_header: Callable[[], Header],
    path: Path,
    lines: GameLines,
    reason: Reason,
    detail: str,
) -> GameRecord:
    """A record for a game that came back without one: what was seen of it, then void."""
    header = next((x for x in lines.lines if isinstance(x, Header)), None)
    if header is None:
        header = make_header()
    plies = [x for x in lines.lines if isinstance(x, Ply)]
    result = Result(
        winner=None,
        reason=reason,
        detail=detail,
        plies=len(plies),
        void=True,
        finished_at=utc_now(),
    )
    write_lines(path, [header, *plies, result])
    if not lines.lines:
        lines.listener(header)
    lines.listener(result)
    return GameRecord(header=header, plies=plies, result=result)


def _header(loaded: LoadedConfig, roster: Roster, game: ScheduledGame) -> Header:
    config = loaded.config
    settings = config.match_settings()
    options = get_game(config.game).parse_options(config.game_options)
    players = {}
    for side, name in ((Side.BLUE, game.blue), (Side.ORANGE, game.orange)):
        spec = roster.spec(name, game.seed)
        players[side] = PlayerInfo(name=name, command=spec.command, cwd=str(spec.cwd))
    return Header(
        game=config.game,
        options=options.model_dump(mode="json"),
        seed=game.seed,
        players=players,
        time_control=TimeControl.of(settings),
        started_at=utc_now(),
    )


# -- opening the cluster ---------------------------------------------------------------------


def make_seats(
    loaded: LoadedConfig, roster: Roster, shared: bool
) -> tuple[dict[str, Seat], dict[str, Pack]]:
    """How each player of the run's `roster` reaches the workers, and the packs to send
    (ClusterError: cannot)."""
    seats: dict[str, Seat] = {}
    packs: dict[str, Pack] = {}
    for index, player in enumerate(loaded.config.players):
        spec = roster.players[player.name]
        limits = spec.limits.model_dump(mode="json") if spec.limits else None
        seat = Seat(
            name=spec.name,
            command=spec.command,
            limits=limits,
            capabilities=sorted(spec.capabilities),
        )
        folder = spec.cwd if player.cwd else None  # a bot without a folder of its own: None
        if shared:
            seat = seat.model_copy(update={"folder": str(spec.cwd)})
        elif not seat.builtin:
            if folder is None:
                raise ClusterError(
                    f"{loaded.path}: players[{index}] ({player.name}): a bot sent to the "
                    "workers needs its own folder: give it a `cwd`, or set [cluster] "
                    "shared_filesystem = true"
                )
            try:
                pack = pack_folder(folder)
            except (PackError, OSError) as exc:
                where = f"{loaded.path}: players[{index}] ({player.name})"
                raise ClusterError(f"{where}: {exc}") from None
            packs[pack.digest] = pack
            seat = seat.model_copy(update={"digest": pack.digest})
        seats[player.name] = seat
    return seats, packs


def _connect(address: ClusterAddress, settings: ClusterSettings) -> tuple[Any, Any]:
    """A Dask client (and the local cluster it owns, if any); blocking."""
    # Deferred: Dask (the optional `cluster` extra) loads only to connect.
    import dask
    from distributed import Client, LocalCluster

    # The runner replays a game whose worker died; Dask must not run it again by itself.
    dask.config.set({"distributed.scheduler.allowed-failures": 0})
    for name in ("distributed", "dask"):  # the live display owns the terminal
        logging.getLogger(name).setLevel(logging.ERROR)
    cluster = None
    if address.local_workers is not None:
        count = address.local_workers
        slots = settings.slots or max(1, (os.cpu_count() or 1) // count)
        cluster = LocalCluster(
            n_workers=count,
            processes=True,
            threads_per_worker=slots,
            resources={SLOTS_RESOURCE: slots},
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
    else:
        try:
            client = Client(address.scheduler, timeout=30)
        except OSError as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    client.run_on_scheduler(_no_automatic_retries)
    return client, cluster


def _no_automatic_retries(dask_scheduler: Any) -> None:
    # Runs in the scheduler: a game's task is never started again after its worker died.
    dask_scheduler.allowed_failures = 0


@asynccontextmanager
async def open_cluster(
    loaded: LoadedConfig, roster: Roster, address: ClusterAddress, settings: ClusterSettings
) -> AsyncIterator[ClusterSession]:
    """Connect to (or start) the cluster, ship the bots (the run's `roster`), and route the
    workers' live lines."""
    shared = settings.shared_filesystem
    seats, packs = await trio.to_thread.run_sync(make_seats, loaded, roster, shared)
    async with connect(address, settings, seats, packs) as session:
        yield session


@asynccontextmanager
async def connect(
    address: ClusterAddress,
    settings: ClusterSettings,
    seats: dict[str, Seat] | None = None,
    packs: dict[str, Pack] | None = None,
) -> AsyncIterator[ClusterSession]:
    """Connect to (or start) the cluster with these seats and packs (a server that learns its
    bots as it goes adds packs to `session.packs` later), ship the packs, and route the
    workers' live lines."""
    seats, packs = seats or {}, packs or {}
    client, cluster = await trio.to_thread.run_sync(_connect, address, settings)
    try:
        router = LineRouter(trio.lowlevel.current_trio_token())
        client.subscribe_topic(LINES_TOPIC, router.received)
        session = ClusterSession(client, trio.lowlevel.current_trio_token(), router, seats, packs)
        await session.ship_all()
        yield session
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(_close, client, cluster)


def _close(client: Any, cluster: Any) -> None:
    client.close()
    if cluster is not None:
        cluster.close()
