"""A player's content hash: what its command runs, as a tournament records it for each game."""

from __future__ import annotations

from pathlib import Path

from referee.app.config import load_config
from referee.bot_content import bot_content_hash
from referee.tournament.roster import Roster


def config(tmp_path: Path, command: str, cwd: str | None = None) -> Path:
    where = f'cwd = "{cwd}"\n' if cwd else ""
    path = tmp_path / "t.toml"
    path.write_text(
        'name = "t"\ngame = "alak"\n'
        f'[[players]]\nname = "a"\ncommand = "{command}"\n{where}'
        '[[players]]\nname = "b"\ncommand = "builtin:random"\n'
    )
    return path


def test_the_hash_follows_the_program_the_command_names(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print('a')\n")
    loaded = load_config(config(tmp_path, "python3 bot.py --seed {seed}"))
    first = Roster.of(loaded).spec("a", 1)
    assert first.content_hash is not None
    assert Roster.of(loaded).spec("a", 2).content_hash == first.content_hash  # seeds do not count
    (tmp_path / "bot.py").write_text("print('b')\n")
    again = Roster.of(load_config(config(tmp_path, "python3 bot.py"))).spec("a", 1)
    assert again.content_hash not in (first.content_hash, None)


def test_a_bot_with_its_own_folder_is_hashed_whole(tmp_path: Path) -> None:
    folder = tmp_path / "alice"
    folder.mkdir()
    (folder / "run.sh").write_text("exec python3 main.py\n")
    (folder / "main.py").write_text("x = 1\n")
    before = Roster.of(load_config(config(tmp_path, "./run.sh", "alice"))).spec("a", 1).content_hash
    (folder / "main.py").write_text("x = 2\n")  # not named by the command, but in its folder
    after = Roster.of(load_config(config(tmp_path, "./run.sh", "alice"))).spec("a", 1).content_hash
    assert before != after


def test_built_in_bots_hash_their_command_and_the_referee_version(tmp_path: Path) -> None:
    one = bot_content_hash("builtin:random", tmp_path, None, "0.1.0")
    assert one == bot_content_hash("builtin:random", tmp_path / "x", None, "0.1.0")
    assert one != bot_content_hash("builtin:random", tmp_path, None, "0.2.0")
    assert one != bot_content_hash("builtin:greedy", tmp_path, None, "0.1.0")


def test_programs_found_on_the_path_are_not_part_of_the_bot(tmp_path: Path) -> None:
    (tmp_path / "python3").write_text("a file named like the interpreter\n")
    plain = bot_content_hash("python3 -c pass", tmp_path, None, "v")
    (tmp_path / "python3").write_text("changed\n")
    assert bot_content_hash("python3 -c pass", tmp_path, None, "v") == plain
