"""The function a Dask worker runs for one game: the game's order played in a trio loop of its
own, its record written to a local file and returned whole, each line also published to the
coordinator as it is written (live.py).

The game is played as a local tournament plays it (the same `GameOrder`, isolation and limits;
the isolation level chosen once per worker process), and its timeouts are judged on this
machine's clock; a lag monitor in the game's own loop voids a timeout
that this worker, overloaded, caused (as locally). Whatever happens to the game, the worker
returns a complete record: a fault of the machine is a void result inside it, never an exception
that Dask would retry. A game whose task Dask no longer wants (Ctrl-C on the coordinator, or a
coordinator that died) is stopped at once: its bots closed, its slot freed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import trio

from protocols.base import Side
from referee.cluster.orders import CheckTask, GameTask, Seat, WorkerReturn
from referee.cluster.shipping import cached_digests, empty_folder, remove_folder, unpack
from referee.isolation import IsolationSettings, IsolationUnavailable
from referee.match import driver
from referee.match.host import Host, choose_host
from referee.match.lag import LagMonitor
from referee.match.order import GameOrder
from referee.match.recorder import void_game
from referee.match.settings import MatchSettings
from referee.records import Header, Ply, RecordWriter, Result
from referee.tournament.preflight import StartCheck, check_bots

Publish = Callable[[dict[str, Any]], None]
Wanted = Callable[[], bool]
LINES_TOPIC = "referee-lines"
# A game whose task Dask no longer wants (its coordinator cancelled it, or died) is stopped:
# its bots are closed and its slot freed. Checked this often (seconds).
WANTED_POLL = 0.5
_UNWANTED = frozenset({"cancelled", "released", "forgotten"})


def run_game(order_json: dict[str, Any]) -> dict[str, Any]:
    """The Dask task: play the game of `order_json` on this worker (see `play_order`)."""
    # Deferred: only ever called on a Dask worker, where the `cluster` extra is installed.
    from distributed import get_worker

    worker = get_worker()

    def publish(message: dict[str, Any]) -> None:
        worker.log_event(LINES_TOPIC, message)

    order = GameTask.model_validate(order_json)

    def wanted() -> bool:
        task = worker.state.tasks.get(order.key)
        return task is not None and task.state not in _UNWANTED

    return play_order(order, worker.address, publish, wanted).model_dump(mode="python")


_hosts: dict[str, Host] = {}  # this worker process's, by the isolation settings that chose it


def worker_host(settings: IsolationSettings) -> Host:
    """The host of this worker process for `settings`: the level chosen on its first game
    (or check), then kept. Raises `IsolationUnavailable`."""
    key = settings.model_dump_json()
    if key not in _hosts:
        _hosts[key] = choose_host(settings)
    return _hosts[key]


def play_order(
    task: GameTask, worker: str, publish: Publish, wanted: Wanted = lambda: True
) -> WorkerReturn:
    """Play `task` here; the packs it needs that are not in this machine's cache instead."""
    held = set(cached_digests())
    missing = [digest for digest in task.digests() if digest not in held]
    if missing:
        return WorkerReturn(worker=worker, missing=missing)
    folders: list[Path] = []
    try:
        blue = task.player_spec(task.blue, _folder(task.blue, folders))
        orange = task.player_spec(task.orange, _folder(task.orange, folders))
        order = GameOrder(
            game=task.game,
            options=task.options,
            players=(blue, orange),
            settings=MatchSettings.model_validate(task.settings),
            seed=task.seed,
            opening=tuple(task.opening),
        )
        record = trio.run(_play, task, order, publish, wanted)
    finally:
        for folder in folders:
            remove_folder(folder)
    return WorkerReturn(worker=worker, record=record)


def run_checks(order_json: dict[str, Any]) -> dict[str, Any]:
    """The Dask task of the pre-flight check: start each bot of `order_json` once here."""
    # Deferred: only ever called on a Dask worker, where the `cluster` extra is installed.
    from distributed import get_worker

    order = CheckTask.model_validate(order_json)
    return check_order(order, get_worker().address).model_dump(mode="python")


def check_order(order: CheckTask, worker: str) -> WorkerReturn:
    """`preflight.check_bots` here, each bot in its folder as in a game."""
    held = set(cached_digests())
    missing = [digest for digest in order.digests() if digest not in held]
    if missing:
        return WorkerReturn(worker=worker, missing=missing)
    settings = MatchSettings.model_validate(order.settings)
    try:
        isolation = worker_host(settings.isolation).isolation
    except IsolationUnavailable as exc:
        checks = [StartCheck(s.name, f"{worker}: {exc}", machine_failed=True) for s in order.seats]
        return WorkerReturn(worker=worker, checks=[asdict(c) for c in checks])
    folders: list[Path] = []
    try:
        specs = [order.player_spec(seat, _folder(seat, folders)) for seat in order.seats]
        at_once = min(order.concurrency, os.cpu_count() or 1)  # bots starting on one worker
        checks = trio.run(check_bots, specs, settings, isolation, at_once, order.opening)
    finally:
        for folder in folders:
            remove_folder(folder)
    return WorkerReturn(worker=worker, checks=[asdict(c) for c in checks])


def _folder(seat: Seat, made: list[Path]) -> Path:
    if seat.folder is not None:
        return Path(seat.folder)
    folder = unpack(seat.digest) if seat.digest is not None else empty_folder()
    made.append(folder)
    return folder


async def _play(task: GameTask, order: GameOrder, publish: Publish, wanted: Wanted) -> bytes:
    digests = {Side.BLUE: task.blue.digest, Side.ORANGE: task.orange.digest}
    with tempfile.TemporaryDirectory(prefix="referee-record-") as scratch:
        path = Path(scratch) / "record.jsonl"
        writer = RecordWriter(path)
        sent = 0

        def listener(line: Header | Ply | Result) -> None:
            nonlocal sent
            if isinstance(line, Header):
                line = _with_digests(line, digests)
            writer.write(line)
            publish({"key": task.key, "index": sent, "line": line.model_dump(mode="json")})
            sent += 1

        lag = LagMonitor()
        try:
            host = worker_host(order.settings.isolation)
        except IsolationUnavailable as exc:  # this machine cannot play it: void, not lost
            void_game(order, str(exc), listener=listener)
            writer.close()
            return path.read_bytes()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(lag.run)
                nursery.start_soon(_stop_when_unwanted, wanted, nursery.cancel_scope)
                await driver.play(order, host, listener=listener, lag_monitor=lag)
                nursery.cancel_scope.cancel()
        finally:
            writer.close()
        return path.read_bytes()


async def _stop_when_unwanted(wanted: Wanted, scope: trio.CancelScope) -> None:
    # The match, cancelled, ends as `interrupted` and closes its bots; nobody reads its record.
    while wanted():
        await trio.sleep(WANTED_POLL)
    scope.cancel()


def _with_digests(header: Header, digests: dict[Side, str | None]) -> Header:
    """The header naming the content hash of each shipped bot."""
    players = {
        side: info.model_copy(update={"content_hash": digests.get(side)})
        for side, info in header.players.items()
    }
    return header.model_copy(update={"players": players})
