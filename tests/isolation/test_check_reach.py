"""`referee check` where bots get users of their own but no sandbox (`users+cgroup`) and the
referee's own Python, which runs the built-in opponent, lies in a private (0700) home, as with
pyenv under /root: the check refuses before its first game, naming the path and the fix, as
`play` and `tournament run` do; it never voids each game and tells the student to run it again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.isolation.levels import Feature, detect

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="bots get users of their own only under a root referee"
)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def private_python() -> Iterator[Path]:
    """A Python in a home others may not enter: a virtualenv of this one, in a 0700 folder."""
    home = Path(tempfile.mkdtemp(prefix="check-home-", dir="/tmp"))
    home.chmod(0o700)
    venv = home / "venv"
    command = [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages"]
    subprocess.run([*command, str(venv)], check=True)
    try:
        yield venv / "bin" / "python"
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """The student's folder, open to every user, with a bot its user can reach."""
    folder = Path(tempfile.mkdtemp(prefix="check-bot-", dir="/tmp"))
    folder.chmod(0o755)
    (folder / "bot.sh").write_text("read colour\n")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_check_refuses_a_built_in_opponent_its_user_cannot_reach(
    private_python: Path, open_folder: Path
) -> None:
    level = "users+cgroup" if Feature.CGROUP in detect().available else "users"
    # The referee itself runs from the private Python: what this one imports, from there.
    paths = [str(ROOT), *(p for p in sys.path if p.endswith("site-packages"))]
    done = subprocess.run(
        [str(private_python), "-m", "referee", "check", "tic-tac-toe", "/bin/sh bot.sh",
         "--isolation", level, "-n", "1"],
        cwd=open_folder, env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 2, said
    home = private_python.parents[2]
    assert said.startswith(
        f"referee check: cannot run builtin:random here: user 60100 cannot enter {home}, on "
        f"the way to {private_python}"
    ), said
    assert "its program. Bots run as a user of their own here; to fix:" in said
    assert (
        "give the referee a sandbox, which shows a bot what it needs wherever it lies: a C "
        "compiler for its helper (apt-get install gcc) or bubblewrap (apt-get install "
        "bubblewrap); or run bots as root"
    ) in said
    assert "isolation:" not in said and "void" not in said and "game 1" not in said
    assert sorted(p.name for p in open_folder.iterdir()) == ["bot.sh"]  # no records folder
