"""A store that cannot be read loses nothing: `tournament run` refuses it (an emptied store, a
deleted one whose records remain) and changes nothing, and `tournament rebuild` makes the store
again from the records, which then resumes as the old store would have."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from referee.app.config import load_config
from referee.tournament.rebuild import RebuildError, rebuild_store
from referee.tournament.store import SIDE_NAME, STORE_NAME
from tests.commandline import referee_here

PLAYER = '[[players]]\nname = "{name}"\ncommand = "builtin:random --seed {seed}"\n'
BASIC = '[match.isolation]\nlevel = "basic+root"\n'


def write(folder: Path, names: list[str], *, format: str = "round-robin", seed: int = 7) -> None:
    head = f'name = "cup"\ngame = "alak"\ngame_options = {{ size = 5 }}\nseed = {seed}\n'
    head += f'format = "{format}"\ngames_per_pairing = 2\n'
    body = "".join(PLAYER.format(name=n, seed=i) for i, n in enumerate(names, start=1))
    (folder / "cup.toml").write_text(head + BASIC + body)


def run(folder: Path) -> str:
    done = referee_here("tournament", "run", "cup.toml", "-q", cwd=folder)
    assert done.returncode == 0, done.stderr
    return done.stderr


def results(folder: Path) -> dict[str, Any]:
    done = referee_here("tournament", "results", "cup.toml", "--format", "json", cwd=folder)
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def records(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "cup" / "games").iterdir())}


def flat(text: str) -> str:
    return " ".join(text.split())


def test_an_emptied_store_is_refused_and_rebuilt_from_the_records(tmp_path: Path) -> None:
    write(tmp_path, ["ann", "ben", "cat"])
    run(tmp_path)
    before, played = results(tmp_path), records(tmp_path)
    (tmp_path / "cup" / STORE_NAME).write_bytes(b"")

    refused = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    said = flat(refused.stderr)
    assert f"cup/{STORE_NAME}: the tournament store is empty (0 bytes" in said
    assert "Nothing was changed" in said
    assert "`referee tournament rebuild cup.toml`" in said
    assert records(tmp_path) == played
    assert (tmp_path / "cup" / STORE_NAME).read_bytes() == b""

    rebuilt = referee_here("tournament", "rebuild", "cup.toml", cwd=tmp_path)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "from 6 game records: 6 games finished, 0 to play" in flat(rebuilt.stderr)
    kept = [p for p in (tmp_path / "cup").glob(f"{STORE_NAME}.replaced-*[0-9]")]
    assert len(kept) == 1 and kept[0].read_bytes() == b""  # the old file, kept as it was
    assert results(tmp_path) == before
    assert referee_here("tournament", "verify", "cup.toml", cwd=tmp_path).returncode == 0
    assert "resuming: 6/6 games done" in run(tmp_path)
    assert records(tmp_path) == played


def test_a_deleted_store_whose_records_remain_is_refused(tmp_path: Path) -> None:
    write(tmp_path, ["ann", "ben"])
    run(tmp_path)
    played = records(tmp_path)
    (tmp_path / "cup" / STORE_NAME).unlink()
    refused = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert refused.returncode == 2
    said = flat(refused.stderr)
    assert "the tournament store is missing, but" in said and "holds 2 game records" in said
    assert "tournament rebuild cup.toml" in said
    assert records(tmp_path) == played
    assert not (tmp_path / "cup" / STORE_NAME).exists()
    assert not (tmp_path / "cup" / SIDE_NAME).exists()


def test_an_unfinished_attempt_is_played_again_under_a_new_record(tmp_path: Path) -> None:
    write(tmp_path, ["ann", "ben"])
    run(tmp_path)
    first = tmp_path / "cup" / "games" / "0001.jsonl"
    lines = first.read_text().splitlines(keepends=True)
    first.write_text("".join(lines[:-1]))  # the referee stopped before the result line
    (tmp_path / "cup" / STORE_NAME).write_bytes(b"")
    rebuilt = rebuild_store(load_config(tmp_path / "cup.toml"))
    assert (rebuilt.finished, rebuilt.to_play) == (1, 1)
    with sqlite3.connect(tmp_path / "cup" / STORE_NAME) as db:
        outcomes = db.execute("SELECT number, attempt, outcome FROM attempts").fetchall()
    assert outcomes == [(1, 1, "cut-short"), (2, 1, "finished")]
    run(tmp_path)
    assert first.read_text() == "".join(lines[:-1])  # never written over
    assert (tmp_path / "cup" / "games" / "0001-2.jsonl").is_file()


def test_a_knockout_is_rebuilt_stage_by_stage(tmp_path: Path) -> None:
    write(tmp_path, ["ann", "ben", "cat", "dan"], format="knockout")
    run(tmp_path)
    before = results(tmp_path)
    (tmp_path / "cup" / STORE_NAME).write_bytes(b"")
    rebuilt = rebuild_store(load_config(tmp_path / "cup.toml"))
    assert rebuilt.to_play == 0 and rebuilt.finished == len(records(tmp_path))
    assert results(tmp_path) == before


def test_a_grown_tournament_is_rebuilt(tmp_path: Path) -> None:
    write(tmp_path, ["ann", "ben"])
    run(tmp_path)
    write(tmp_path, ["ann", "ben", "cat"])
    run(tmp_path)
    before = results(tmp_path)
    (tmp_path / "cup" / STORE_NAME).unlink()
    rebuild_store(load_config(tmp_path / "cup.toml"))
    after = results(tmp_path)
    # The rounds of the games played before it grew are those of the grown schedule now.
    assert [without_round(g) for g in after.pop("games")] == [
        without_round(g) for g in before.pop("games")
    ]
    assert after == before
    assert "resuming: 6/6 games done" in run(tmp_path)


def without_round(game: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in game.items() if key != "round"}


def test_records_of_another_config_or_unreadable_stop_the_rebuild(tmp_path: Path) -> None:
    write(tmp_path, ["ann", "ben"])
    run(tmp_path)
    (tmp_path / "cup" / STORE_NAME).write_bytes(b"")
    write(tmp_path, ["ann", "ben"], seed=8)  # another schedule: other seeds
    unlike = r"games: the recorded games are not those of the schedule .*cup\.toml makes"
    with pytest.raises(RebuildError, match=unlike):
        rebuild_store(load_config(tmp_path / "cup.toml"))
    write(tmp_path, ["ann", "ben"])
    (tmp_path / "cup" / "games" / "0002.jsonl").write_text("{not json\n")
    with pytest.raises(RebuildError, match=r"0002\.jsonl:1: not JSON.*Move the record out"):
        rebuild_store(load_config(tmp_path / "cup.toml"))
    assert (tmp_path / "cup" / STORE_NAME).read_bytes() == b""  # nothing changed
    assert not (tmp_path / "cup" / SIDE_NAME).exists()


def test_a_staged_record_of_another_config_is_named(tmp_path: Path) -> None:
    write(tmp_path, ["ann", "ben", "cat", "dan"], format="knockout")
    run(tmp_path)
    (tmp_path / "cup" / STORE_NAME).write_bytes(b"")
    write(tmp_path, ["ann", "ben", "cat", "dan"], format="knockout", seed=8)
    with pytest.raises(RebuildError, match=r"0001\.jsonl: .* but game 1 of the schedule is "):
        rebuild_store(load_config(tmp_path / "cup.toml"))
