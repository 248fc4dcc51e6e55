"""A bot started by its program's absolute path (a compiled bot: `/home/me/bots/cbot`) is that
program's own, like `./cbot`: its folder is its own, and another bot whose script lies in the
same folder hides only that script from it, never the folder it needs to run. Run from another
folder, the two play as they do run from theirs."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from referee.bot import BotInfrastructureError, open_bot
from referee.isolation import player_places
from referee.isolation.places import Places, hidden_from
from tests.commandline import referee
from tests.isolation.arena import Arena

TEMPLATE = Path(__file__).parents[2] / "docs" / "templates" / "python" / "alak_bot.py"


def program_bot(folder: Path) -> Path:
    """A bot that is a program of its own, run by its path (as a compiled bot is)."""
    program = folder / "cbot"
    program.write_text(f"#!{sys.executable}\n" + TEMPLATE.read_text())
    program.chmod(0o755)
    return program


def test_a_program_named_by_its_absolute_path_is_the_bot_s_own(tmp_path: Path) -> None:
    bots, elsewhere = tmp_path / "bots", tmp_path / "cw"
    bots.mkdir()
    elsewhere.mkdir()
    program = program_bot(bots)
    shutil.copy(TEMPLATE, bots / "good.py")
    places = player_places(str(program), elsewhere)
    assert places == Places(elsewhere, bots, program)
    script = player_places(f"python3 {bots / 'good.py'}", elsewhere)
    # The script's player hides its script from the program's, not the folder both lie in.
    assert hidden_from(places, [places, script], ()) == [bots / "good.py"]
    assert hidden_from(script, [places, script], ()) == [program]


def test_two_bots_in_one_folder_play_when_run_from_another(tmp_path: Path) -> None:
    bots, elsewhere = tmp_path / "bots", tmp_path / "cw"
    bots.mkdir()
    elsewhere.mkdir()
    program = program_bot(bots)
    shutil.copy(TEMPLATE, bots / "good.py")
    for players in (
        [f"{sys.executable} {bots / 'good.py'}", str(program)],
        [str(program), f"{sys.executable} {bots / 'good.py'}"],
    ):
        ran = referee(
            "play", "alak", "-p1", players[0], "-p2", players[1], "--json", "-nr", cwd=elsewhere
        )
        assert ran.returncode == 0, ran.stderr
        result = json.loads(ran.stdout)
        assert result["reason"] not in ("crash", "void"), result
        assert "cannot be executed" not in ran.stdout + ran.stderr


async def test_a_program_the_sandbox_hides_from_its_bot_is_the_referee_s_fault(
    sandbox_level: None, helper: str
) -> None:
    # A program the referee found (here on the bot's PATH) and the bot's user can run, which the
    # sandbox's plan then hides from the bot (it lies in another player's folder), is the
    # referee's fault: the game is void, the bot does not lose by "crash".
    stage = Arena("sandbox", sys.executable)
    try:
        folder, elsewhere = stage.directory(), stage.directory()
        program_bot(folder)
        other = Places(stage.directory(), folder, folder / "good.py")
        with pytest.raises(BotInfrastructureError, match="cannot be executed inside the sandbox"):
            async with open_bot(
                "cbot",
                cwd=elsewhere,
                env={"PATH": f"{folder}:/usr/bin:/bin"},
                isolation=stage.isolation().among(other),
            ):
                pass
        stage.assert_nothing_left()
    finally:
        stage.cleanup()
