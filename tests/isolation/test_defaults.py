"""Bots are contained by default: every run says on its first line which isolation level its bots
run under, and a level this machine cannot give stops the run before any game, saying why and
what would provide it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from referee.isolation import IsolationSettings, choose, detect
from referee.match import MatchSettings
from referee.tournament.config import load_config
from tests.commandline import referee

PLAY = ["play", "alak", "-p1", "builtin:random", "-p2", "builtin:random", "-o", "size=7"]
TOURNAMENT = """\
name = "cup"
game = "alak"
game_options = {{ size = 7 }}
games_per_pairing = 1
{isolation}
[[players]]
name = "a"
command = "builtin:random --seed 1"
[[players]]
name = "b"
command = "builtin:random --seed 2"
"""


def without_bwrap() -> dict[str, str]:
    """An environment in which bubblewrap cannot be found (the referee runs by full path)."""
    return {**os.environ, "PATH": str(Path(sys.executable).parent)}


def test_matches_and_tournaments_default_to_auto(tmp_path: Path) -> None:
    assert MatchSettings().isolation.level == "auto"
    (tmp_path / "cup.toml").write_text(TOURNAMENT.format(isolation=""))
    assert load_config(tmp_path / "cup.toml").config.match_settings().isolation.level == "auto"


def test_play_names_its_level_on_the_first_line(tmp_path: Path) -> None:
    done = referee(*PLAY, "--record", str(tmp_path / "g.jsonl"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = choose(IsolationSettings()).name
    assert done.stderr.splitlines()[0] == (
        f"isolation: {expected} (auto: the strongest this machine offers)"
    )


def test_a_level_the_machine_cannot_give_fails_before_any_game(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "referee", *PLAY, "--isolation", "sandbox"],
        cwd=tmp_path, env=without_bwrap(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    text = " ".join(done.stderr.split())
    assert "isolation 'sandbox' is not available" in text
    assert "apt-get install bubblewrap" in text
    assert not (tmp_path / "referee-games").exists()  # no game was started


def test_a_tournament_asking_for_a_missing_level_fails_before_any_game(tmp_path: Path) -> None:
    isolation = '[match.isolation]\nlevel = "sandbox"\n'
    (tmp_path / "cup.toml").write_text(TOURNAMENT.format(isolation=isolation))
    done = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "run", "cup.toml", "-q"],
        cwd=tmp_path, env=without_bwrap(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    text = " ".join(done.stderr.split())
    assert "cup.toml: [match.isolation]" in text and "apt-get install bubblewrap" in text
    assert not (tmp_path / "cup").exists()  # no store, no game


def test_a_tournament_names_its_level_first(tmp_path: Path) -> None:
    (tmp_path / "cup.toml").write_text(TOURNAMENT.format(isolation=""))
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0].startswith(f"isolation: {choose(IsolationSettings()).name}")


@pytest.mark.skipif(os.geteuid() != 0, reason="the warning is for a referee running as root")
def test_bots_running_as_root_are_announced_loudly(tmp_path: Path) -> None:
    done = referee(*PLAY, "--isolation", "basic", "--record", str(tmp_path / "g"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "isolation: basic (as asked)"
    assert lines[1].startswith("WARNING: the referee runs as root")


def test_auto_here_is_what_doctor_reports() -> None:
    assert choose(IsolationSettings()).features == detect().available


@pytest.mark.skipif(os.geteuid() != 0, reason="bots get users of their own only under root")
def test_a_bot_that_auto_must_run_as_root_is_announced_loudly(tmp_path: Path) -> None:
    # pytest's temporary folders are private (0700, root's): a user of its own could not read
    # this bot, so auto runs it without one, as root, and the run says so, in play and before a
    # tournament's first game.
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "bot.py").write_text("import sys\nsys.stdin.readline()\nprint('a', flush=True)\n")
    bot = f"{sys.executable} {private / 'bot.py'}"
    open_dir = Path(tempfile.mkdtemp(prefix="open-", dir="/tmp"))  # where bots run: readable
    open_dir.chmod(0o755)
    try:
        done = referee(
            "play", "alak", "-o", "size=5", "-p1", bot, "-p2", "builtin:random",
            "--no-random-assignment", "--record", str(tmp_path / "g.jsonl"), cwd=open_dir,
        )  # fmt: skip
    finally:
        shutil.rmtree(open_dir, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stderr.split())
    assert "WARNING: player1 ran as root" in said and "chmod -R o+rX" in said
    assert "WARNING: player2" not in said  # the built-in bot had a user of its own
    config = TOURNAMENT.format(isolation="").replace(
        'command = "builtin:random --seed 2"', f'command = "{bot}"'
    )
    (tmp_path / "cup.toml").write_text(config)
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "WARNING: b ran as root" in " ".join(done.stderr.split())
