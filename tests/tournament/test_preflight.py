"""A bot that cannot start is named before the first game, not silently scored 0-0-4; and after
its command is fixed, `tournament replay --player` plays its games again (real CLI)."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from tests.commandline import referee_here

CONFIG = """\
name = "cup"
game = "alak"
game_options = {{ size = 5 }}
games_per_pairing = 2
[[players]]
name = "ann"
command = "builtin:random --seed 1"
[[players]]
name = "ben"
command = "builtin:random --seed 2"
[[players]]
name = "typo"
command = "{command}"
cwd = "typo"
"""


def write_config(tmp_path: Path, command: str) -> None:
    (tmp_path / "typo").mkdir(exist_ok=True)
    (tmp_path / "typo" / "main.py").write_text(  # the built-in random bot, as a student's
        "import runpy, sys\n"
        "sys.argv = ['bots', 'random', '--game', 'alak', '--options', '{\"size\": 5}']\n"
        "runpy.run_module('bots', run_name='__main__')\n"
    )
    (tmp_path / "cup.toml").write_text(CONFIG.format(command=command))


def finished_games(tmp_path: Path) -> list[tuple[str, str, str | None]]:
    with sqlite3.connect(tmp_path / "cup" / "tournament.sqlite") as db:
        rows = db.execute(
            "SELECT blue, orange, reason FROM games WHERE state = 'finished' ORDER BY number"
        ).fetchall()
    return [(b, o, r) for b, o, r in rows]


def test_a_bot_that_cannot_start_stops_the_tournament_before_its_first_game(
    tmp_path: Path,
) -> None:
    write_config(tmp_path, "python3 mian.py")
    done = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2
    text = " ".join(done.stderr.split())
    assert "typo: cannot start:" in text and "mian.py" in text
    assert "not starting the tournament: typo cannot start" in text
    assert "--allow-broken" in text
    assert not (tmp_path / "cup").exists()  # nothing was played, nothing is left behind


def test_allow_broken_plays_and_replay_plays_the_fixed_bots_games_again(tmp_path: Path) -> None:
    write_config(tmp_path, "python3 mian.py")
    done = referee_here("tournament", "run", "cup.toml", "-q", "--allow-broken", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    games = finished_games(tmp_path)
    assert len(games) == 6
    typo_games = [g for g in games if "typo" in g[:2]]
    assert len(typo_games) == 4 and all(reason == "crash" for *_, reason in typo_games)
    records_before = sorted((tmp_path / "cup" / "games").glob("*.jsonl"))

    write_config(tmp_path, "python3 main.py")  # the command is fixed
    done = referee_here("tournament", "replay", "cup.toml", "--player", "typo", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "typo: 4 played games set aside" in " ".join(done.stderr.split())
    games = finished_games(tmp_path)
    assert len(games) == 6
    assert all(reason != "crash" for *_, reason in games)
    records_after = sorted((tmp_path / "cup" / "games").glob("*.jsonl"))
    assert set(records_before) < set(records_after)  # the old records are kept
    assert len(records_after) == len(records_before) + 4
    with sqlite3.connect(tmp_path / "cup" / "tournament.sqlite") as db:
        archived = db.execute("SELECT COUNT(*) FROM attempts WHERE reason = 'crash'").fetchone()
    assert archived == (4,)


def test_replay_names_an_unknown_player(tmp_path: Path) -> None:
    write_config(tmp_path, "python3 main.py")
    done = referee_here("tournament", "replay", "cup.toml", "--player", "nobody", cwd=tmp_path)
    assert done.returncode == 2
    assert "no player 'nobody'" in done.stderr


def test_a_player_whose_folder_does_not_exist_is_refused_before_the_first_game(
    tmp_path: Path,
) -> None:
    write_config(tmp_path, "python3 main.py")
    config = (tmp_path / "cup.toml").read_text().replace('cwd = "typo"', 'cwd = "tpyo"')
    (tmp_path / "cup.toml").write_text(config + '[match.isolation]\nlevel = "basic+root"\n')
    done = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    text = " ".join(done.stderr.split())
    assert f"typo: cannot start: its folder {tmp_path / 'tpyo'} (cwd) does not exist" in text
    assert "not starting the tournament: typo cannot start" in text
    assert "machine" not in text
    assert not (tmp_path / "cup").exists()


NEVER_STARTED = """\
name = "cup"
game = "alak"
game_options = {{ size = 5 }}
format = "{format}"
games_per_pairing = 1
concurrency = 2
[knockout]
seeds = ["ann", "folder", "missing", "ben"]  # the two that cannot start meet in round 1
[[players]]
name = "ann"
command = "builtin:random --seed 1"
[[players]]
name = "ben"
command = "builtin:random --seed 2"
[[players]]
name = "folder"
command = "./somedir"
[[players]]
name = "missing"
command = "{python} nothere2.py"
[match.isolation]
level = "basic+root"
"""


@pytest.mark.slow
@pytest.mark.parametrize("format", ["round-robin", "swiss", "knockout"])
def test_players_that_never_start_collect_no_wins_and_their_games_are_double_forfeits(
    tmp_path: Path, format: str
) -> None:
    # One command is a folder, the other a script that is not there (the interpreter exits
    # with code 2 before its first move): their games against each other have no winner.
    (tmp_path / "somedir").mkdir()
    config = NEVER_STARTED.format(format=format, python=sys.executable)
    if format != "knockout":
        config = config.replace("[knockout]\n", "").replace(
            'seeds = ["ann", "folder", "missing", "ben"]', ""
        )
    (tmp_path / "cup.toml").write_text(config)
    done = referee_here("tournament", "run", "cup.toml", "-q", "--allow-broken", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shown = referee_here("tournament", "results", "cup.toml", "--format", "json", cwd=tmp_path)
    report = json.loads(shown.stdout)
    standings = {s["name"]: s for s in report["standings"]}
    broken = {"folder", "missing"}
    for name in broken:
        assert standings[name]["wins"] == standings[name]["draws"] == 0, standings[name]
        assert standings[name]["losses"] == standings[name]["games"] > 0
    between = [g for g in report["games"] if {g["blue"], g["orange"]} == broken]
    assert between, "the two that cannot start never met"
    assert all(g["result"] == "double-forfeit" and g["winner"] is None for g in between)
    table = referee_here("tournament", "results", "cup.toml", "--games", cwd=tmp_path).stdout
    games = [line for line in table.splitlines() if "games/0" in line]
    lines = [line for line in games if "folder" in line and "missing" in line]
    assert len(lines) == len(between)
    assert all("double forfeit" in line and "draw" not in line for line in lines), lines
