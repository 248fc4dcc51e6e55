"""Before the first game of a cluster tournament every bot is started once on a worker, as a
local run starts it on this machine: a bot that cannot start stops the run there, named with the
reason, and nothing is played."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.cluster.conftest import referee, write_bot


def test_a_bot_that_cannot_start_on_the_workers_stops_the_run(tmp_path: Path) -> None:
    write_bot(tmp_path / "good", delay=0.0)
    write_bot(tmp_path / "typo", delay=0.0)
    path = tmp_path / "cup.toml"
    path.write_text(
        'name = "cup"\ngame = "tic-tac-toe"\ndirectory = "cup"\n'
        f"[[players]]\nname = \"good\"\ncommand = '{sys.executable} bot.py {{seed}}'\n"
        'cwd = "good"\n'
        f"[[players]]\nname = \"typo\"\ncommand = '{sys.executable} mian.py {{seed}}'\n"
        'cwd = "typo"\n'
    )
    proc = referee("tournament", "run", str(path), "--quiet", "--cluster", "local:1", cwd=tmp_path)
    _, err = proc.communicate(timeout=180)
    said = " ".join(err.split())
    assert proc.returncode == 2, err
    assert "typo: cannot start:" in said and "mian.py" in said
    assert "good: cannot start" not in said
    assert "not starting the tournament: typo cannot start" in said
    assert not (tmp_path / "cup").exists()  # nothing was played, and nothing is left behind
