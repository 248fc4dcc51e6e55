"""`referee tournament new|run|results` and `referee demo` as people and scripts use them."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from referee.app.config import load_config
from tests.commandline import referee, referee_here

SMALL = """\
name = "small"
game = "alak"
seed = 2
games_per_pairing = 1
concurrency = 2

[[players]]
name = "x"
command = "builtin:random --seed {seed}"
[[players]]
name = "y"
command = "builtin:greedy --seed {seed}"
[[players]]
name = "z"
command = "builtin:random --seed 3"
"""


def test_new_writes_a_working_config_from_a_folder_of_bots(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    for folder, files in {
        "alice": ["main.py", "helper.py"],
        "bob": ["Bot.jar"],
        "carol": ["run"],
        "dave": ["notes.txt"],
    }.items():
        (bots / folder).mkdir(parents=True)
        for name in files:
            (bots / folder / name).write_text("")
    os.chmod(bots / "carol" / "run", 0o755)
    (bots / "eve.py").write_text("")
    proc = referee_here("tournament", "new", "bots", "--game", "lgame", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "with 4 players" in proc.stderr and "dave" in proc.stderr
    loaded = load_config(tmp_path / "tournament.toml")
    commands = {p.name: (p.command, str(p.cwd)) for p in loaded.config.players}
    assert commands == {
        "alice": ("python3 main.py", "bots/alice"),
        "bob": ("java -jar Bot.jar", "bots/bob"),
        "carol": ("./run", "bots/carol"),
        "eve": ("python3 eve.py", "bots/eve"),  # a loose program, given a folder of its own
    }
    assert (bots / "eve" / "eve.py").is_file() and not (bots / "eve.py").exists()
    assert loaded.config.game == "l-game"
    text = (tmp_path / "tournament.toml").read_text()
    assert '# name = "dave"' in text  # left for the instructor to complete
    again = referee_here("tournament", "new", "bots", cwd=tmp_path)
    assert again.returncode == 2 and "--force" in again.stderr


def test_new_counts_one_player_in_the_singular(tmp_path: Path) -> None:
    (tmp_path / "bots" / "alice").mkdir(parents=True)
    (tmp_path / "bots" / "alice" / "main.py").write_text("")
    proc = referee_here("tournament", "new", "bots", "--game", "alak", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "wrote tournament.toml with 1 player\n" in proc.stderr, proc.stderr


def test_run_then_results_as_table_csv_and_json(tmp_path: Path) -> None:
    (tmp_path / "small.toml").write_text(SMALL)
    run = referee_here("tournament", "run", "small.toml", "--events", "-q", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "tournament-started" and kinds[-1] == "tournament-finished"
    assert kinds.count("game-started") == kinds.count("game-finished") == 3
    assert events[-1]["complete"] and len(events[-1]["standings"]) == 3

    as_json = json.loads(referee_here("tournament", "results", "small.toml", "-f", "json",
                                      cwd=tmp_path).stdout)  # fmt: skip
    assert as_json["counts"]["finished"] == 3
    assert [s["name"] for s in as_json["standings"]] == [s["name"] for s in events[-1]["standings"]]
    assert all(Path(g["record"]).is_file() for g in as_json["games"])

    table = referee_here("tournament", "results", "small", "--games", cwd=tmp_path)  # a directory
    assert table.returncode == 0 and "Standings" in table.stdout and "0003.jsonl" in table.stdout

    standings = referee_here(
        "tournament", "results", "small.toml", "-f", "csv", cwd=tmp_path
    ).stdout
    rows = list(csv.DictReader(io.StringIO(standings)))
    assert [r["name"] for r in rows] == [s["name"] for s in as_json["standings"]]
    assert {"points", "elo", "elo_low", "elo_high", "timeouts"} <= set(rows[0])
    games = referee_here(
        "tournament", "results", "small.toml", "-f", "csv", "--games", cwd=tmp_path
    )
    assert len(list(csv.DictReader(io.StringIO(games.stdout)))) == 3

    # The anchor holds a player at a rating; three games rate nobody finitely, so an anchor
    # on a player is refused, naming it; a bare number puts the components' means there.
    anchored = referee_here("tournament", "results", "small.toml", "-f", "json",
                            "--anchor", "z=100", cwd=tmp_path)  # fmt: skip
    assert anchored.returncode == 2 and "the anchor 'z'" in anchored.stderr
    table = json.loads(
        referee_here("tournament", "results", "small.toml", "-f", "json", cwd=tmp_path).stdout
    )["ratings"]
    assert {"unbeaten", "winless", "unbounded"} & {f for r in table["rows"] for f in r["flags"]}


def test_a_bad_config_is_reported_with_its_line_and_exit_code_2(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text(SMALL.replace("games_per_pairing = 1", "games = 1"))
    proc = referee_here("tournament", "run", "bad.toml", cwd=tmp_path)
    assert proc.returncode == 2
    assert "bad.toml:4: games: unknown setting" in proc.stderr
    assert not (tmp_path / "bad").exists()


def test_a_bad_match_setting_is_reported_with_its_line_with_the_others_before_any_game(
    tmp_path: Path,
) -> None:
    # [match] is validated with the rest of the file: its problems come with every other one,
    # each at its line, and no game is played, no store made.
    text = SMALL.replace("concurrency = 2", "concurrency = 0")
    text += "\n[match]\nexit_grac = 1.0\nmax_line_bytes = 1\n[match.limits]\nmemory_mb = 1\n"
    (tmp_path / "bad.toml").write_text(text)
    proc = referee("tournament", "run", "bad.toml", "-q", cwd=tmp_path)
    assert proc.returncode == 2
    problems = {line for line in proc.stderr.splitlines() if line.startswith("bad.toml:")}
    assert {line.split(": ")[1] for line in problems} == {
        "concurrency",
        "match.exit_grac",
        "match.max_line_bytes",
        "match.limits.memory_mb",
    }
    assert "bad.toml:5: concurrency: " in proc.stderr
    assert "bad.toml:18: match.exit_grac: unknown setting: did you mean 'exit_grace'?" in (
        proc.stderr
    )
    assert "bad.toml:19: match.max_line_bytes: " in proc.stderr
    assert "bad.toml:21: match.limits.memory_mb: " in proc.stderr
    assert not (tmp_path / "bad").exists()


@pytest.mark.slow
def test_the_demo_plays_a_round_robin_and_says_where_everything_is(tmp_path: Path) -> None:
    proc = referee("demo", "--game", "l-game", "--games-per-pairing", "1", "--dir", "out",
                   cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Standings" in proc.stdout and "random" in proc.stdout
    assert "Everything is in" in proc.stderr
    assert (tmp_path / "out" / "l-game.toml").is_file()
    assert (tmp_path / "out" / "l-game" / "tournament.sqlite").is_file()
    report = json.loads(referee("tournament", "results", "out/l-game.toml", "-f", "json",
                                cwd=tmp_path).stdout)  # fmt: skip
    players = len(report["standings"])
    assert players >= 2
    assert report["counts"]["finished"] == players * (players - 1) // 2
