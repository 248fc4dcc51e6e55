"""The moves of a game played on a worker reach the coordinator as they are played: the
runner's listener is told every line of the record (header, each ply, the result) once and in
order, most of them before the game is over, so the live display, `--events` and the web
dashboard follow cluster games as they follow local ones."""

from __future__ import annotations

import shutil
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

import trio

from referee.app.config import load_config
from referee.cluster.address import parse_address
from referee.cluster.client import ClusterSession, open_cluster
from referee.cluster.shipping import FOLDER_PREFIX, cache_directory
from referee.match.lag import LagMonitor
from referee.records import Header, Ply, Result, read_record
from referee.tournament.config import ClusterSettings, LoadedConfig
from referee.tournament.formats import make_schedule
from referee.tournament.roster import Roster
from tests.cluster.conftest import write_bot


def noop(line: object) -> None:
    pass


def ann_and_bob(tmp_path: Path, name: str, extra: str = "") -> LoadedConfig:
    """A tic-tac-toe tournament `name` of the bots in tmp_path/ann and tmp_path/bob."""
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ngame = "tic-tac-toe"\n{extra}'
        + "".join(
            f"[[players]]\nname = \"{n}\"\ncommand = '{sys.executable} bot.py {{seed}}'\n"
            f'cwd = "{n}"\n'
            for n in ("ann", "bob")
        )
    )
    return load_config(path)


async def test_plies_reach_the_listener_while_the_game_is_played(tmp_path: Path) -> None:
    for name in ("ann", "bob"):
        write_bot(tmp_path / name, delay=0.2)
    loaded = ann_and_bob(tmp_path, "live")
    game = make_schedule(loaded.config)[0]
    roster = Roster.of(loaded)
    heard: list[Header | Ply | Result] = []
    record_path = tmp_path / "game.jsonl"
    settings = ClusterSettings(slots=1)
    async with open_cluster(loaded, roster, parse_address("local:1"), settings) as session:
        record = await session.play(
            loaded, game, record_path, heard.append, LagMonitor(), roster=roster
        )
        live = session.router.delivered
        digests = {seat.name: seat.digest for seat in session.seats.values()}
        sent_at_start = list(session.shipped)
        # A worker that lacks the bots (one that joined later, or lost its cache) gets them
        # when its game asks, and the game is played: not voided, not counted as a replay.
        shutil.rmtree(cache_directory())
        again = await session.play(
            loaded, game, tmp_path / "again.jsonl", noop, LagMonitor(), roster=roster
        )
        sent_later = session.shipped[len(sent_at_start) :]

    assert sorted(d for _, d in sent_at_start) == sorted(set(digests.values()))  # type: ignore[type-var]
    assert sorted(d for _, d in sent_later) == sorted(set(digests.values()))  # type: ignore[type-var]
    assert again.result is not None and not again.result.void
    assert [p.move for p in again.plies] == [p.move for p in record.plies]

    assert record.result is not None and not record.result.void
    assert record == read_record(record_path)
    # Every line exactly once, in order: the header as the worker wrote it, then each ply.
    assert heard == [record.header, *record.plies, record.result]
    # The record names the content hash of each bot that played (both were shipped).
    for info in record.header.players.values():
        assert info.content_hash is not None and info.content_hash == digests[info.name]
    # The header and the plies came as they were played (each move takes 0.2 s), not with
    # the finished record.
    assert live >= 1 + len(record.plies)


def bot_folders(session: ClusterSession) -> list[Path]:
    """The folders the session's shipped bots are unpacked in for their games right now."""
    found: list[Path] = []
    for seat in session.seats.values():
        if seat.digest is not None:
            found += Path(tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}*-{seat.digest[:12]}-*")
    return found


async def test_a_game_the_coordinator_gives_up_stops_on_its_worker(tmp_path: Path) -> None:
    for name in ("ann", "bob"):  # bots that never answer within the test
        write_bot(tmp_path / name, delay=1000.0, extra=f"# {name} in {tmp_path}\n")
    loaded = ann_and_bob(tmp_path, "stuck", "[time_control]\nmove_timeout = 3000\n")
    game = make_schedule(loaded.config)[0]
    roster = Roster.of(loaded)
    async with open_cluster(
        loaded, roster, parse_address("local:1"), ClusterSettings(slots=1)
    ) as session:
        started = trio.Event()

        def listener(line: Header | Ply | Result) -> None:
            if isinstance(line, Header):
                started.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                partial(session.play, roster=roster),
                loaded,
                game,
                tmp_path / "g.jsonl",
                listener,
                LagMonitor(),
            )
            await started.wait()
            assert bot_folders(session)  # the game is being played
            nursery.cancel_scope.cancel()  # as Ctrl-C does

        def executing(dask_worker: Any) -> list[str]:
            return [t.state for t in dask_worker.state.tasks.values()]

        # Its task is dropped, its bots closed and its folders removed; the safety limit is
        # far below the game's own length (its bots would think for 1,000 s).
        with trio.fail_after(60):
            while True:
                states = await trio.to_thread.run_sync(session.client.run, executing)
                left = bot_folders(session)
                if not any(states.values()) and not left:
                    break
                await trio.sleep(0.2)
