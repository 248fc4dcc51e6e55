"""The moves of a game played on a worker reach the coordinator as they are played: the
runner's listener is told every line of the record (header, each ply, the result) once and in
order, most of them before the game is over, so the live display, `--events` and the web
dashboard follow cluster games as they follow local ones."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from referee.cluster.address import parse_address
from referee.cluster.client import open_cluster
from referee.cluster.shipping import cache_directory
from referee.match import LagMonitor
from referee.records import Header, Ply, Result, read_record
from referee.tournament.config import ClusterSettings, load_config
from referee.tournament.schedule import make_schedule
from tests.cluster.conftest import write_bot


def noop(line: object) -> None:
    pass


async def test_plies_reach_the_listener_while_the_game_is_played(tmp_path: Path) -> None:
    for name in ("ann", "bob"):
        write_bot(tmp_path / name, delay=0.2)
    path = tmp_path / "live.toml"
    path.write_text(
        'name = "live"\ngame = "tic-tac-toe"\n'
        + "".join(
            f"[[players]]\nname = \"{n}\"\ncommand = '{sys.executable} bot.py {{seed}}'\n"
            f'cwd = "{n}"\n'
            for n in ("ann", "bob")
        )
    )
    loaded = load_config(path)
    game = make_schedule(loaded.config)[0]
    heard: list[Header | Ply | Result] = []
    record_path = tmp_path / "game.jsonl"
    settings = ClusterSettings(slots=1)
    async with open_cluster(loaded, parse_address("local:1"), settings) as session:
        record = await session.play(loaded, game, record_path, heard.append, LagMonitor())
        live = session.router.delivered
        digests = {seat.name: seat.digest for seat in session.seats.values()}
        sent_at_start = list(session.shipped)
        # A worker that lacks the bots (one that joined later, or lost its cache) gets them
        # when its game asks, and the game is played: not voided, not counted as a replay.
        shutil.rmtree(cache_directory())
        again = await session.play(loaded, game, tmp_path / "again.jsonl", noop, LagMonitor())
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
