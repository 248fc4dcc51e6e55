"""A run's players: each bot's content hash computed once when the run starts, in a frozen
roster that every game, the pre-flight check and a cluster's orders take their players from."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.app.config import load_config
from referee.tournament import roster as roster_module
from referee.tournament.roster import Roster

CONFIG = """\
name = "r"
game = "alak"

[[players]]
name = "alice"
command = "python3 main.py --seed {seed}"
cwd = "alice"

[[players]]
name = "bob"
command = "builtin:random --seed {seed}"
"""


def write(tmp_path: Path) -> Path:
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "main.py").write_text("x = 1\n")
    path = tmp_path / "r.toml"
    path.write_text(CONFIG)
    return path


def test_each_bot_is_hashed_once_when_the_roster_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = load_config(write(tmp_path))
    hashed: list[str] = []
    real = roster_module.bot_content_hash

    def counted(command: str, *args: object) -> str:
        hashed.append(command)
        return real(command, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(roster_module, "bot_content_hash", counted)
    roster = Roster.of(loaded)
    assert sorted(hashed) == sorted(p.command for p in loaded.config.players)
    specs = [roster.spec(name, seed) for seed in range(5) for name in roster.names]
    assert len(hashed) == 2  # games of any seed take the hashes made with the roster
    assert {s.name: s.content_hash for s in specs} == {
        name: player.content_hash for name, player in roster.players.items()
    }


def test_a_game_s_player_is_the_roster_s_with_its_seed(tmp_path: Path) -> None:
    roster = Roster.of(load_config(write(tmp_path)))
    alice, bob = roster.spec("alice", 7), roster.spec("bob", 7)
    assert alice.command == "python3 main.py --seed 7"
    assert alice.cwd == (tmp_path / "alice").resolve()
    assert "--seed 7" in bob.command and bob.command != "builtin:random --seed 7"  # expanded
    assert roster.names == ["alice", "bob"]  # the config's order


def test_the_roster_is_what_the_bots_were_when_it_was_made(tmp_path: Path) -> None:
    path = write(tmp_path)
    roster = Roster.of(load_config(path))
    made = roster.spec("alice", 1).content_hash
    (tmp_path / "alice" / "main.py").write_text("x = 2\n")  # a bot changed mid-run
    assert roster.spec("alice", 1).content_hash == made
    assert Roster.of(load_config(path)).spec("alice", 1).content_hash != made  # the next run's
    with pytest.raises(TypeError):
        roster.players["alice"] = roster.players["bob"]  # type: ignore[index]
