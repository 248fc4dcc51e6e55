"""The start check before a tournament from openings tells a bot that declared `position` what
its first game will tell it: such a bot waits for those lines, so told only its colour it was
left waiting out the whole first move's time (ten seconds and more per bot) before the first
game, and its answer was never seen."""

from __future__ import annotations

import sys
from pathlib import Path

from referee.isolation.levels import IsolationSettings, choose
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec, resolve_command
from referee.tournament.preflight import check_bots, trial_lines

# Notes every line it is told, reads as a bot that declared `position` must (its colour, then
# `position K` and K moves) and answers; it notes that it answered.
NOTING = """\
import sys
def hear():
    line = sys.stdin.readline().strip()
    with open("told.txt", "a") as notes:
        notes.write(line + "\\n")
    return line
hear()
count = int(hear().split()[1])
for _ in range(count):
    hear()
print("a", flush=True)
with open("told.txt", "a") as notes:
    notes.write("answered\\n")
sys.stdin.readline()
"""
# A course bot: its colour, then its move at once when it is blue.
PLAIN = "import sys\nsys.stdin.readline()\nprint('a', flush=True)\nsys.stdin.readline()\n"
SETTINGS = MatchSettings(startup_allowance=10.0, move_timeout=10.0, grace=0.5)


def player(tmp_path: Path, name: str, source: str, declared: bool = True) -> PlayerSpec:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / f"{name}.py").write_text(source)
    return PlayerSpec(
        name=name,
        command=f"{sys.executable} {tmp_path / name}.py",
        cwd=tmp_path,
        capabilities=frozenset({"position"} if declared else ()),
    )


def test_the_trial_lines_are_those_of_a_game_from_the_opening(tmp_path: Path) -> None:
    declared = player(tmp_path, "declared", PLAIN)
    plain = player(tmp_path, "plain", PLAIN, declared=False)
    builtin = PlayerSpec(name="b", command=resolve_command("builtin:random", "alak"))
    assert trial_lines(declared, ["c", "e"]) == ["blue", "position 2", "c", "e"]
    assert trial_lines(declared, ["c", "e", "g"]) == ["orange", "position 3", "c", "e", "g"]
    assert trial_lines(declared, []) == ["blue"]
    assert trial_lines(plain, ["c", "e"]) == ["blue"]
    assert trial_lines(builtin, ["c"]) == ["orange", "position 1", "c"]


async def test_a_bot_that_declared_position_is_checked_with_an_opening(tmp_path: Path) -> None:
    isolation = choose(IsolationSettings(level="basic+root"))
    opening = ["c", "e", "g"]  # three plies: orange is on move
    players = [
        player(tmp_path / "noting", "noting", NOTING),
        player(tmp_path / "plain", "plain", PLAIN, declared=False),
    ]
    checks = await check_bots(players, SETTINGS, isolation, 2, opening)
    assert [(c.name, c.problem) for c in checks] == [("noting", None), ("plain", None)]
    told = (tmp_path / "noting" / "told.txt").read_text().splitlines()
    assert told == ["orange", "position 3", "c", "e", "g", "answered"]
