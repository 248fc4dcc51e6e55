"""The bot templates of docs/templates handle the protocol's `position` extension: run with
--position, each plays a whole game from an opening without a fault, as either colour."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from protocols.base import Side
from tests.commandline import referee

TEMPLATES = Path(__file__).resolve().parents[2] / "docs" / "templates"
OPENINGS = ["c, e, g", "c, e"]  # orange moves first after three plies, blue after two


def template(language: str, folder: Path) -> str:
    """The command of a language's template, built in `folder` where it needs building."""
    if language == "python":
        return f"{sys.executable} {TEMPLATES / 'python' / 'alak_bot.py'}"
    if language == "java":
        if shutil.which("javac") is None:
            pytest.skip("no Java compiler here (Debian package default-jdk-headless)")
        shutil.copy(TEMPLATES / "java" / "AlakBot.java", folder)
        subprocess.run(["javac", "AlakBot.java"], cwd=folder, check=True)
        return f"java -cp {folder} AlakBot"
    if shutil.which("gcc") is None:
        pytest.skip("no C compiler here (Debian package gcc)")
    binary = folder / "alak_bot"
    source = TEMPLATES / "c" / "alak_bot.c"
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", str(binary), str(source)], check=True)
    return str(binary)


@pytest.mark.parametrize("language", ["python", "java", "c"])
@pytest.mark.parametrize("opening", OPENINGS)
@pytest.mark.parametrize("first", ["p1", "p2"])
def test_a_template_plays_from_an_opening(
    tmp_path: Path, language: str, opening: str, first: str
) -> None:
    bot = template(language, tmp_path) + " --position"
    players = {"p1": bot, "p2": "builtin:greedy"} if first == "p1" else {
        "p1": "builtin:greedy", "p2": bot}  # fmt: skip
    done = referee(
        "play", "alak", "-p1", players["p1"], "-p2", players["p2"], "--no-random-assignment",
        "--opening", opening, "--position-capable", first, "--record", str(tmp_path / "g.jsonl"),
        "--json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    template_side = Side.BLUE if first == "p1" else Side.ORANGE
    assert result["reason"] in ("game-ending", "repetition", "ply-limit"), result
    assert result["bots"][template_side.value]["stderr_tail"] == ""
