"""What a new user meets first: the Python the README asks for, built-in bots told their game's
options by the referee (not by hand), and generated config files whose comments line up."""

from __future__ import annotations

import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest

from referee.app.config import load_config
from referee.course.scheme import Course, load_scheme, write_skeleton
from referee.players import resolve_command
from referee.toml_config.writing import align_comments
from tests.commandline import referee

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_says_which_python_before_anything_is_installed() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    said = readme.index("**Python 3.11 or later**")
    assert said < readme.index("pip install")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["requires-python"] == ">=3.11"


def test_built_in_bots_get_the_game_options_from_the_referee() -> None:
    bots = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    examples = re.findall(r"^referee play .*$", bots, re.M)
    assert examples and not any("--options" in line for line in examples)
    assert 'referee play alak -o size=9 -p1 "builtin:search" -p2 "builtin:random"' in examples
    from protocols import get_game

    options = get_game("alak").parse_options({"size": 9})
    argv = shlex.split(resolve_command("builtin:search", "alak", options))
    assert argv[:3] == [sys.executable, "-m", "bots"]
    assert argv[argv.index("--options") + 1] == '{"size":9}'


def comment_columns(text: str) -> set[int]:
    """Where each comment after a setting starts (lines of comments alone are left out)."""
    return {
        line.index("  #") + 2
        for line in text.splitlines()
        if "  #" in line and line.strip() and not line.lstrip().startswith("#  ")
        and not line.startswith(" ")
    }  # fmt: skip


@pytest.mark.parametrize("game", ["alak", "lasker-morris"])
def test_tournament_new_writes_its_comments_in_one_column(tmp_path: Path, game: str) -> None:
    for name in ("alice", "a-bot-with-a-longer-name"):
        (tmp_path / "bots" / name).mkdir(parents=True)
        (tmp_path / "bots" / name / "main.py").write_text("print('h1 d1 r0')\n")
    done = referee("tournament", "new", "bots", "-g", game, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "tournament.toml").read_text()
    assert len(comment_columns(text)) == 1, text
    assert load_config(tmp_path / "tournament.toml").config.game == game


def test_course_new_writes_its_comments_in_one_column(tmp_path: Path) -> None:
    write_skeleton(tmp_path / "c", "A course with a long name", "lasker-morris")
    for name in ("course.toml", "grading.toml"):
        text = (tmp_path / "c" / name).read_text()
        assert len(comment_columns(text)) == 1, text
    assert Course(tmp_path / "c").config.game == "lasker-morris"
    assert load_scheme(tmp_path / "c" / "grading.toml").clean > 0


def test_comments_line_up_after_the_longest_setting() -> None:
    text = 'a = 1  # one\nlonger = "x"  # two\n              # two, continued\n# alone\nb = 2\n'
    assert align_comments(text) == (
        'a = 1         # one\nlonger = "x"  # two\n              # two, continued\n# alone\nb = 2\n'
    )
    long = "k = " + "x" * 60 + "  # too long to line up\nb = 2  # short\n"
    assert align_comments(long) == "k = " + "x" * 60 + "  # too long to line up\nb = 2  # short\n"
