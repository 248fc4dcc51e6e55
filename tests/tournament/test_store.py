"""The tournament store: schedule and results survive reopening, running games are recovered,
the read-only view cannot write, one writer at a time, and schedule changes are refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from protocols.base import Reason, Side
from referee.app.config import load_config
from referee.records import RecordWriter, Result, read_chained_record, utc_now
from referee.tournament.resume import ScheduleChanged, open_tournament
from referee.tournament.store import GameState, StoreError, open_store, open_view
from tests.replay.make_records import record_lines

CONFIG = """\
name = "store test"
game = "alak"
seed = 4
[[players]]
name = "a"
command = "builtin:random"
[[players]]
name = "b"
command = "builtin:random"
[[players]]
name = "c"
command = "builtin:random"
"""


def result(winner: Side | None, reason: Reason, ending: str | None = None) -> Result:
    return Result(
        winner=winner, reason=reason, ending=ending, detail="d", plies=7,
        void=reason.voids_game, finished_at=utc_now(),
    )  # fmt: skip


def test_results_recovery_and_the_read_only_view(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(CONFIG)
    store, schedule = open_tournament(load_config(config))
    assert len(schedule) == 6 and store.info().game == "alak"
    first, second, third = (g.number for g in schedule[:3])
    attempt, record = store.start(first)
    assert (attempt, record) == (1, "games/0001.jsonl")
    store.finish(first, attempt, result(Side.BLUE, Reason.GAME_ENDING, "stone-count"))
    store.start(second)
    store.finish(second, 1, result(None, Reason.REFEREE_OVERLOAD))
    assert store.start(second) == (2, "games/0002-2.jsonl")  # a replay has its own record
    store.start(third)
    store.close()  # as if the referee died with games 2 and 3 running

    store, _ = open_tournament(load_config(config))
    assert sorted(store.recover()) == [second, third]
    store.close()
    view = open_view(tmp_path / "t")
    rows = {row.number: row for row in view.games()}
    assert rows[first].state is GameState.FINISHED and rows[first].winner is Side.BLUE
    assert rows[first].winner_name == schedule[0].blue and rows[first].plies == 7
    assert (rows[first].reason, rows[first].ending) == (Reason.GAME_ENDING, "stone-count")
    assert (rows[second].reason, rows[second].ending) == (Reason.REFEREE_OVERLOAD, None)
    assert rows[second].state is GameState.PENDING and rows[second].voids == 1
    assert rows[third].state is GameState.PENDING
    outcomes = [(a.number, a.attempt, a.outcome, a.reason) for a in view.attempts()]
    assert outcomes == [
        (1, 1, "finished", "stone-count"),
        (2, 1, "void", "referee-overload"),
        (2, 2, "cut-short", None),
        (3, 1, "cut-short", None),
    ]
    assert view.record_path(rows[first]) == tmp_path / "t" / "games/0001.jsonl"
    assert view.players() == ["a", "b", "c"]
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        view.db.execute("UPDATE games SET state = 'finished'")
    view.close()


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    with pytest.raises(StoreError, match="another referee is running"):
        open_store(tmp_path)
    store.close()
    open_store(tmp_path).close()


def test_no_store_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no tournament store"):
        open_view(tmp_path)


@pytest.mark.parametrize(
    ("old", "new", "named"),
    [
        ("seed = 4", "seed = 5", "seed: 4 -> 5"),
        ('name = "c"', 'name = "d"', "players"),
        # Fewer games per pairing (more is growth, tests/tournament/test_growth.py).
        ('game = "alak"', 'game = "alak"\ngames_per_pairing = 1', "games_per_pairing: 2 -> 1"),
        ('game = "alak"', 'game = "alak"\ngame_options = { size = 9 }', "game_options"),
    ],
)
def test_a_config_that_changes_the_schedule_is_refused(
    tmp_path: Path, old: str, new: str, named: str
) -> None:
    config = tmp_path / "t.toml"
    config.write_text(CONFIG)
    open_tournament(load_config(config))[0].close()
    config.write_text(CONFIG.replace(old, new))
    with pytest.raises(ScheduleChanged, match=named) as caught:
        open_tournament(load_config(config))
    assert str(caught.value).endswith(
        "or set another `directory` to start a new tournament (adding players or games per "
        "pairing is fine: the games played are kept)."
    )
    # Settings that do not change the schedule are fine.
    config.write_text(CONFIG.replace("seed = 4", "seed = 4\nconcurrency = 1\nmax_replays = 9"))
    open_tournament(load_config(config))[0].close()


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("swiss", "a Swiss"), ("knockout", "a knockout"), ("stages", "a group-stage tournament")],
)
def test_a_staged_tournament_that_gains_a_player_is_told_it_cannot_grow(
    tmp_path: Path, fmt: str, name: str
) -> None:
    config = tmp_path / "t.toml"
    players = "".join(f'[[players]]\nname = "p{i}"\ncommand = "builtin:random"\n' for i in range(4))
    head = f'name = "t"\ngame = "alak"\nseed = 4\nformat = "{fmt}"\n'
    config.write_text(head + players)
    open_tournament(load_config(config))[0].close()
    config.write_text(head + players + '[[players]]\nname = "late"\ncommand = "builtin:random"\n')
    with pytest.raises(ScheduleChanged) as caught:
        open_tournament(load_config(config))
    said = str(caught.value)
    assert said.endswith(
        f"or set another `directory` to start a new tournament ({name} cannot take more "
        "players or games per pairing once it has started: its later rounds follow from its "
        "first)."
    )
    assert "is fine" not in said


def test_a_finished_game_keeps_its_records_final_hash(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(CONFIG)
    store, schedule = open_tournament(load_config(config))
    first, second = schedule[0].number, schedule[1].number
    attempt, name = store.start(first)
    writer = RecordWriter(tmp_path / "t" / name)
    for line in record_lines("alak", 3):
        writer.write(line)
    writer.close()
    store.finish(first, attempt, result(Side.BLUE, Reason.GAME_ENDING, "stone-count"))
    store.start(second)  # no record written: nothing to keep
    store.finish(second, 1, result(None, Reason.CRASH))
    rows = {row.number: row for row in store.games()}
    store.close()
    assert rows[first].chain == writer.chain == read_chained_record(tmp_path / "t" / name).chain
    assert rows[second].chain is None
