"""What a bot's command really runs: an `env` wrapper's assignments are the referee's to make,
and the folders they name are the bot's own (shown to it, hidden from its opponent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.isolation.confinement import player_directories
from referee.isolation.interpreters import without_env


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
