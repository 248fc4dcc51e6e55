"""Messages on stderr are wrapped for a terminal only: in a log or a pipe each one stays a single
line, whole, however long, so that it can be searched for as it was said."""

from __future__ import annotations

from pathlib import Path

from tests.commandline import referee

CONFIG = """\
name = "cup"
game = "alak"
[match.isolation]
level = "basic+root"
[[players]]
name = "a-player-with-a-rather-long-name-to-make-the-line-long"
command = "python3 this-file-is-not-there-at-all.py --with --many --arguments"
[[players]]
name = "b"
command = "builtin:random"
"""


def test_a_long_message_is_one_line_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    (tmp_path / "cup.toml").write_text(CONFIG)
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    refusal = [line for line in done.stderr.splitlines() if "not starting the tournament" in line]
    assert len(refusal) == 1 and len(refusal[0]) > 100, done.stderr
    assert refusal[0].endswith("or add --allow-broken to score their games as losses.")
    (tmp_path / "cup").mkdir(exist_ok=True)
    (tmp_path / "cup" / "tournament.sqlite").write_bytes(b"")
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    line = next(line for line in done.stderr.splitlines() if "store is empty" in line)
    assert line.endswith("`referee tournament rebuild cup.toml`, then run again.")
