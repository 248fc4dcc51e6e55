"""Bots are contained by default: every run says on its first line which isolation level its bots
run under, and a level this machine cannot give stops the run before any game, saying why and
what would provide it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.app.config import load_config
from referee.isolation import IsolationSettings, choose, describe, detect
from referee.match.settings import MatchSettings
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


def without_sandbox() -> dict[str, str]:
    """An environment in which no sandbox can be made: bubblewrap cannot be found (the referee
    runs by full path) and the Python programs stand in for the compiled helper."""
    return {**os.environ, "PATH": str(Path(sys.executable).parent), "REFEREE_NATIVE_HELPER": "0"}


def first_line(stderr: str) -> str:
    return " ".join(stderr.split("\n", 1)[0].split())


def test_matches_and_tournaments_default_to_auto(tmp_path: Path) -> None:
    assert MatchSettings().isolation.level == "auto"
    (tmp_path / "cup.toml").write_text(TOURNAMENT.format(isolation=""))
    assert load_config(tmp_path / "cup.toml").config.match_settings().isolation.level == "auto"


def test_play_names_its_level_on_the_first_line(tmp_path: Path) -> None:
    done = referee(*PLAY, "--record", str(tmp_path / "g.jsonl"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    isolation = choose(IsolationSettings())
    assert " ".join(done.stderr.split()).startswith(
        f"isolation: {isolation.name} (auto: the strongest this machine offers"
    )
    assert describe(isolation) in " ".join(done.stderr.split())


def test_a_level_the_machine_cannot_give_fails_before_any_game(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "referee", *PLAY, "--isolation", "sandbox"],
        cwd=tmp_path, env=without_sandbox(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    text = " ".join(done.stderr.split())
    assert "isolation 'sandbox' is not available" in text
    assert "apt-get install bubblewrap" in text and "apt-get install gcc" in text
    assert not (tmp_path / "referee-games").exists()  # no game was started


def test_a_tournament_asking_for_a_missing_level_fails_before_any_game(tmp_path: Path) -> None:
    isolation = '[match.isolation]\nlevel = "sandbox"\n'
    (tmp_path / "cup.toml").write_text(TOURNAMENT.format(isolation=isolation))
    done = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "run", "cup.toml", "-q"],
        cwd=tmp_path, env=without_sandbox(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    text = " ".join(done.stderr.split())
    assert "cup.toml: [match.isolation]" in text and "apt-get install bubblewrap" in text
    assert not (tmp_path / "cup").exists()  # no store, no game


def test_a_tournament_names_its_level_first(tmp_path: Path) -> None:
    (tmp_path / "cup.toml").write_text(TOURNAMENT.format(isolation=""))
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert first_line(done.stderr).startswith(f"isolation: {choose(IsolationSettings()).name}")


@pytest.mark.skipif(os.geteuid() != 0, reason="bots can run as root only under a root referee")
def test_bots_never_run_as_root_unless_the_run_says_so(tmp_path: Path) -> None:
    done = referee(*PLAY, "--isolation", "basic", "--record", str(tmp_path / "g"), cwd=tmp_path)
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert "isolation 'basic' would run bots as root" in said and "basic+root" in said
    assert not (tmp_path / "g").exists()
    asked = ["--isolation", "basic+root", "--record", str(tmp_path / "g")]
    done = referee(*PLAY, *asked, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert first_line(done.stderr).startswith("WARNING: bots run as root, as this run allows")
    isolation = '[match.isolation]\nlevel = "cgroup"\n'
    (tmp_path / "cup.toml").write_text(TOURNAMENT.format(isolation=isolation))
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2
    assert "would run bots as root" in " ".join(done.stderr.split())
    assert not (tmp_path / "cup").exists()
    isolation += "allow_root = true\n"
    (tmp_path / "cup.toml").write_text(TOURNAMENT.format(isolation=isolation))
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert first_line(done.stderr).startswith("WARNING: bots run as root")


def test_auto_here_is_what_doctor_reports() -> None:
    assert choose(IsolationSettings()).features == detect().available


PRIVATE_BOT = "import sys\nsys.stdin.readline()\nprint('a', flush=True)\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="bots get users of their own only under root")
def test_a_bot_its_user_cannot_reach_is_refused_before_any_game(tmp_path: Path) -> None:
    # pytest's temporary folders are private (0700, root's): a user of its own cannot enter
    # this bot's folder, in the sandbox or not. The run refuses it before its first game, naming
    # the folder and the fix; it runs as root only where the run allows that, and says so.
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "bot.py").write_text(PRIVATE_BOT)
    play = ["play", "alak", "-o", "size=5", "-p2", "builtin:random", "--no-random-assignment"]
    play += ["-p1", f"{sys.executable} bot.py", "--record", str(tmp_path / "g.jsonl")]
    done = referee(*play, cwd=private)
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert f"cannot run player1 here: user 60100 cannot enter {private}" in said, said
    assert "chmod o+rX" in said and "allow_root = true" in said
    assert not (tmp_path / "g.jsonl").exists()
    done = referee(*play, "--isolation", "cgroup+root", cwd=private)
    assert done.returncode == 0, done.stderr
    config = TOURNAMENT.format(isolation="").replace(
        'command = "builtin:random --seed 2"',
        f'command = "{sys.executable} bot.py"\ncwd = "private"',
    )
    (tmp_path / "cup.toml").write_text(config)
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert f"referee: cannot run b here: user 60100 cannot enter {private}" in said, said
    assert "isolation:" not in said and not (tmp_path / "cup").exists()  # nothing made
    (tmp_path / "cup.toml").write_text(
        config.replace("[[players]]", "[match.isolation]\nallow_root = true\n\n[[players]]", 1)
    )
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stderr.split())
    assert "WARNING: b ran as root" in said and f"cannot enter {private}" in said, said
