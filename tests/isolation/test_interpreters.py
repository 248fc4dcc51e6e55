"""What a bot's command really runs: an `env` wrapper's assignments are the referee's to make,
and the folders they name are the bot's own (shown to it, hidden from its opponent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.isolation.confinement import player_directories
from referee.isolation.interpreters import without_env
from referee.players import PlayerSpec
from referee.tournament.bot_folders import layout_refusal


@pytest.mark.parametrize(
    ("argv", "program", "assigned"),
    [
        (
            ["env", "A=1", "B=x=y", "python3", "bot.py"],
            ["python3", "bot.py"],
            {"A": "1", "B": "x=y"},
        ),
        (["/usr/bin/env", "python3", "bot.py"], ["python3", "bot.py"], {}),
        (["python3", "A=1"], ["python3", "A=1"], {}),
        (["env", "-i", "A=1", "python3"], ["env", "-i", "A=1", "python3"], {}),  # env's own options
        (["env", "A=1"], ["env", "A=1"], {}),  # no program: env prints its environment
        (["env", "1A=2", "python3"], ["env", "1A=2", "python3"], {}),  # not a name: a program
        ([], [], {}),
    ],
)
def test_an_env_wrapper_is_seen_through(
    argv: list[str], program: list[str], assigned: dict[str, str]
) -> None:
    assert without_env(argv) == (program, assigned)


def test_folders_an_env_assignment_names_are_the_players_own(tmp_path: Path) -> None:
    copy, other = tmp_path / "copy", tmp_path / "other"
    copy.mkdir()
    other.mkdir()
    bot = tmp_path / "bot"
    bot.mkdir()
    command = f"env PYTHONPATH={copy}:{other}:/nowhere python3 main.py"
    assert player_directories(command, bot) == [bot, copy, other]


def test_a_bot_naming_its_private_places_or_descriptors_lies_in_no_other_bots_folder(
    tmp_path: Path,
) -> None:
    # `python3 bot.py /tmp /dev/fd/1` names the bot's own /tmp and output, never the machine's:
    # a tournament refused it as a folder (/tmp) holding every other bot's folder in /tmp.
    folders = [tmp_path / "a", tmp_path / "b"]
    for folder in folders:
        folder.mkdir()
        (folder / "bot.py").write_text("")
    command = "python3 bot.py /tmp /var/tmp/ /dev/fd/1 /proc/self/fd/1 /dev/stdout"
    assert player_directories(command, folders[0]) == [folders[0]]
    players = [
        PlayerSpec(name="a", command=command, cwd=folders[0]),
        PlayerSpec(name="b", command="python3 bot.py", cwd=folders[1]),
    ]
    assert layout_refusal(players) is None
