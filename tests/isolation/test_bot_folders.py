"""Each bot kept to its own files, in every layout the referee writes or accepts, at the default
level with the sandbox made by the compiled helper (bubblewrap hidden) and by bubblewrap.

Every bot here is a spy: as blue, its first line lists every file below the test's folder that
it could read something from, and the game ends on that line (it is not a move), which the
record keeps. Layouts: loose programs that `tournament new` gives folders of their own, bots
run from the folder that holds them all beside another tournament's store and other runs'
records, two programs side by side in one folder, `referee check` beside the records of earlier
checks, and `referee play` beside other runs' output."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import sys
from pathlib import Path

import pytest
from rich.console import Console

from protocols.base import Side
from referee.app.config import load_config
from referee.app.tournament_session import play_tournament
from referee.course.check import run_check
from referee.isolation.levels import IsolationSettings
from referee.match.host import choose_host
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec
from referee.records import read_record
from referee.tournament.template import discover_bots, example_config, give_folders
from referee.views.session_lines import SessionLines
from tests.commandline import referee
from tests.games import play_game

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="the compiled helper makes the sandbox only for a root referee"
)

SPY = """\
import os, sys
ROOT = {root!r}
if sys.stdin.readline().strip() != "blue":  # orange waits: what blue says ends the game
    sys.stdin.readline()
    sys.exit()
seen = []
for here, dirs, files in os.walk(ROOT):
    for name in files:
        path = os.path.join(here, name)
        try:
            with open(path, "rb") as f:
                if f.read(1):
                    seen.append(os.path.relpath(path, ROOT))
        except OSError:
            pass
print("|".join(sorted(seen)) or "nothing", flush=True)
sys.stdin.readline()
"""


def spy(path: Path, root: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SPY.format(root=str(root)))
    path.parent.chmod(0o755)


def record_header(game: str = "alak") -> str:
    return json.dumps({"type": "header", "game": game, "chain": "0" * 64}) + "\n"


def other_runs(root: Path) -> list[str]:
    """Another tournament's store and records, and a record of `referee play`, in `root`."""
    (root / "old" / "games").mkdir(parents=True)
    with sqlite3.connect(root / "old" / "tournament.sqlite") as store:
        store.execute("create table games (number integer)")
    (root / "old" / "games" / "0001.jsonl").write_text(record_header())
    (root / "referee-games").mkdir()
    (root / "referee-games" / "alak-1.jsonl").write_text(record_header())
    return ["old/tournament.sqlite", "old/games/0001.jsonl", "referee-games/alak-1.jsonl"]


def seen_by_blue(directory: Path) -> dict[str, set[str]]:
    """What each bot saw as blue, from the records of a tournament's games."""
    seen: dict[str, set[str]] = {}
    for path in sorted((directory / "games").glob("*.jsonl")):
        record = read_record(path)
        assert record.result is not None and record.result.loser_line, record.result
        blue = record.header.players[Side.BLUE].name
        seen.setdefault(blue, set()).update(record.result.loser_line.split("|"))
    return seen


def play(config: Path) -> Path:
    loaded = load_config(config)
    said = io.StringIO()
    final = play_tournament(loaded, [SessionLines(Console(file=said, width=200))])
    assert final is not None, said.getvalue()
    return loaded.directory


def test_loose_programs_get_folders_of_their_own_and_see_nothing_else(
    tmp_path: Path, sandbox_program: str
) -> None:
    bots = tmp_path / "bots"
    for name in ("ann", "ben"):
        spy(bots / f"{name}.py", tmp_path)
    spy(bots / "cid" / "main.py", tmp_path)
    (bots / "ben_book.txt").write_text("ben's opening book")
    other_runs(tmp_path)
    give_folders(bots)
    config = tmp_path / "cup.toml"
    text = example_config(discover_bots(bots), config, "cup", "alak", 1)
    chosen = f'level = "auto"\nsandbox_program = "{sandbox_program}"'
    config.write_text(text.replace('level = "auto"', chosen, 1))
    seen = seen_by_blue(play(config))
    assert seen == {
        "ann": {"bots/ann/ann.py"},
        "ben": {"bots/ben/ben.py"},
        "cid": {"bots/cid/main.py"},
    }


def test_run_where_all_are_sees_no_other_player_store_or_record(
    tmp_path: Path, sandbox_program: str
) -> None:
    players = ""
    for name in ("ann", "ben", "cid"):
        spy(tmp_path / "bots" / name / "spy.py", tmp_path)
        command = f"{sys.executable} bots/{name}/spy.py"
        players += f'[[players]]\nname = "{name}"\ncommand = "{command}"\n'
    (tmp_path / "notes.txt").write_text("the folder the run is started in")
    other_runs(tmp_path)
    config = tmp_path / "cup.toml"
    config.write_text(
        'name = "cup"\ngame = "alak"\nseed = 2\n'
        f'[match.isolation]\nsandbox_program = "{sandbox_program}"\n' + players
    )
    seen = seen_by_blue(play(config))
    # The folder they run in, no bot's own, less the referee's: its records, store and config.
    shared = {"notes.txt"}
    assert seen == {name: {f"bots/{name}/spy.py", *shared} for name in ("ann", "ben", "cid")}


async def test_programs_side_by_side_do_not_see_each_other(
    tmp_path: Path, sandbox_program: str
) -> None:
    for name in ("ann", "ben"):
        spy(tmp_path / f"{name}.py", tmp_path)
    (tmp_path / "shared.txt").write_text("in the folder both run in")
    settings = MatchSettings(
        random_assignment=False,
        isolation=IsolationSettings(sandbox_program=sandbox_program),
    )
    seen = {}
    for blue, orange in (("ann", "ben"), ("ben", "ann")):
        record = await play_game(
            "alak",
            PlayerSpec(name=blue, command=f"{sys.executable} {blue}.py", cwd=tmp_path),
            PlayerSpec(name=orange, command=f"{sys.executable} {orange}.py", cwd=tmp_path),
            settings=settings,
        )
        assert record.result is not None and record.result.loser_line, record.result
        seen[blue] = set(record.result.loser_line.split("|"))
    assert seen == {"ann": {"ann.py", "shared.txt"}, "ben": {"ben.py", "shared.txt"}}


async def test_check_keeps_earlier_checks_and_stores_out_of_sight(
    tmp_path: Path, sandbox_program: str
) -> None:
    spy(tmp_path / "mine.py", tmp_path)
    earlier = tmp_path / "referee-games" / "check-alak-20240101-000000"
    earlier.mkdir(parents=True)
    (earlier / "check-01-blue.jsonl").write_text(record_header())
    (tmp_path / "cup").mkdir()
    (tmp_path / "cup" / "tournament.sqlite").write_bytes(b"SQLite format 3\0")
    settings = MatchSettings(isolation=IsolationSettings(sandbox_program=sandbox_program))
    report = await run_check(
        "alak",
        f"{sys.executable} mine.py",
        settings,
        tmp_path / "referee-games" / "check-alak-20240101-000001",
        games_per_colour=1,
        cwd=tmp_path,
        host=choose_host(settings.isolation),
    )
    blue = next(g for g in report.games if g.colour is Side.BLUE)
    assert blue.record.result is not None
    assert blue.record.result.loser_line == "mine.py"


def test_play_keeps_other_runs_out_of_sight(tmp_path: Path) -> None:
    spy(tmp_path / "mine.py", tmp_path)
    (tmp_path / "notes.txt").write_text("the folder the game is played in")
    other_runs(tmp_path)
    done = referee(
        "play", "alak", "-p1", f"{sys.executable} mine.py", "-p2", "builtin:random",
        "--no-random-assignment", "--json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["loser_line"] == "mine.py|notes.txt"
