"""Every public function that takes a path takes a str as well as a Path."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.app.config import load_config
from referee.records import read_chained_record, read_record
from referee.replay import load_replay
from referee.tournament.store import StoreError, open_store, open_view
from tests.replay.make_records import random_record


def test_records_stores_and_configs_open_from_a_str(tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    random_record(record, "alak", seed=3)
    assert read_record(str(record)) == read_record(record)
    assert read_chained_record(str(record)).chain is not None
    assert load_replay(str(record)).plies == read_record(record).plies
    open_store(str(tmp_path / "cup")).close()
    with pytest.raises(StoreError, match=r"tournament\.sqlite"):  # a str, read as a path
        open_view(str(tmp_path / "cup"))
    (tmp_path / "cup.toml").write_text(
        'name = "cup"\ngame = "alak"\n'
        '[[players]]\nname = "a"\ncommand = "builtin:random"\n'
        '[[players]]\nname = "b"\ncommand = "builtin:random"\n'
    )
    loaded = load_config(str(tmp_path / "cup.toml"))
    assert loaded.config.name == "cup"
