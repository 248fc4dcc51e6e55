"""A new game is one folder plus one entry-point line, and nothing else: a toy game made here
(`race`: a token on a track, moved one or two squares, whoever reaches the end wins) as one
package, installed with a dist-info that declares its one `referee.games` line, is listed by
`referee games`, played by `referee play` with the built-in random and search bots, drawn in the
terminal by its `board.py` and in the web view by its `renderer.js`, and searched with its
`evaluation.py`, without any other edit anywhere.

It is installed into a throw-away virtual environment layered on the tests' own (a `.pth` file
adds the tests' site-packages; VIRTUAL_ENV names them, as an activated environment does, so a
sandboxed bot may read them), because the built-in bots are processes of their own: they find
the game where the referee's Python finds it, as they would after a `pip install`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import protocols
from referee.records import read_record
from referee.replay import load_replay
from tests.conftest import ReadableFolders
from tests.plugins.race import FILES, write
from tests.web.conftest import ServerThread, serve_in_thread


@pytest.fixture(scope="module")
def installed(readable_folders: ReadableFolders) -> Path:
    """A throw-away virtual environment with the toy game in its site-packages; its Python."""
    root = readable_folders.mktemp("race")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    ours = sysconfig.get_paths()["purelib"]
    (Path(site) / "tests-environment.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    write(Path(site), FILES)
    return python


def run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`referee ARGS` run by the throw-away environment's Python."""
    env = {**os.environ, "VIRTUAL_ENV": sys.prefix}
    return subprocess.run(
        [python, "-m", "referee", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.fixture(scope="module")
def record(installed: Path, readable_folders: ReadableFolders) -> Path:
    """A game of the toy played by `referee play` between the built-in random and search bots."""
    folder = readable_folders.mktemp("race-games")
    done = run(
        installed, "play", "race", "-p1", "builtin:random --seed 1", "-p2",
        "builtin:search --depth 3 --seed 2", "-nr", "--record", "race.jsonl", cwd=folder,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder / "race.jsonl"


def test_the_game_is_listed(installed: Path, tmp_path: Path) -> None:
    listed = run(installed, "games", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "race [plug-in from referee-race 0.1]" in listed.stdout.splitlines()


def test_the_builtin_bots_play_it(record: Path) -> None:
    played = read_record(record)
    assert played.result is not None and played.result.ending == "finish"
    assert not played.result.reason.is_bot_fault, played.result.detail
    assert all(report.exit_code == 0 for report in played.result.bots.values())
    # The search, orange, moves second: with the solved evaluation it wins from the start.
    assert played.result.winner is not None and played.result.winner.value == "orange"
    assert [p.move for p in played.plies] and {p.move for p in played.plies} <= {"1", "2"}


MODEL = """
from bots.evaluation import model_for
model = model_for("race")
print(type(model).__name__, model.evaluation.__module__, model.evaluation.__name__)
"""


def test_the_search_bots_use_its_evaluation(installed: Path, tmp_path: Path) -> None:
    found = subprocess.run(
        [installed, "-c", MODEL], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert found.stdout.split() == ["GenericModel", "race_game.evaluation", "evaluate"]


def test_the_terminal_draws_its_board(installed: Path, record: Path) -> None:
    shown = run(installed, "replay", record.name, "--ply", "1", cwd=record.parent)
    assert shown.returncode == 0, shown.stderr
    first = read_record(record).plies[0].move
    track = [" T " if i == int(first) else " . " for i in range(7)]
    assert "".join(track) in shown.stdout, shown.stdout  # piped: the colour-less board
    assert " a  b  c  d  e  f  g " in shown.stdout
    assert "last move: from a  to " in shown.stdout


@pytest.fixture
def on_the_path(installed: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The toy game importable in this process too, for the web view served from here."""
    site = installed.parents[1] / "lib"
    packages = next(site.glob("python*/site-packages"))
    monkeypatch.syspath_prepend(str(packages))
    protocols.refresh()
    yield
    monkeypatch.undo()
    for name in [m for m in sys.modules if m == "race_game" or m.startswith("race_game.")]:
        del sys.modules[name]
    protocols.refresh()


def test_the_web_view_draws_its_board(on_the_path: None, record: Path, page: Any) -> None:
    replay = load_replay(record)
    with serve_in_thread([record.parent]) as server:
        page.goto(f"{server.url}/replay/0/{record.name}#ply=2")
        check_token(page, server, replay.frames[2].state, 2)
        page.click('button[data-action="end"]')
        check_token(page, server, replay.frames[-1].state, len(replay.plies))


def check_token(page: Any, server: ServerThread, state: dict[str, Any], ply: int) -> None:
    page.wait_for_selector(f'svg.board.race[data-ply="{ply}"]')
    drawn = page.eval_on_selector_all("svg.board .piece", "els => els.map(e => e.dataset.square)")
    assert drawn == [state["at"]], json.dumps(state)
