"""The game registry reads entry points: the built-in games are declared like any plug-in (and
their folders say the same), names and aliases resolve without importing rules, and a broken
plug-in is named, never a traceback.

A broken plug-in is a distribution's metadata alone (a `.dist-info` folder on the path), which
is all `importlib.metadata` needs to find its entry points.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

import protocols
from protocols import (
    GameNotLoadable,
    UnknownGame,
    builtin_names,
    canonical_name,
    entries,
    get_game,
    parts,
)
from tests.commandline import referee

ROOT = Path(__file__).resolve().parents[2]
BUILTINS = {
    "alak": "protocols.alak.rules:GAME",
    "l-game": "protocols.l_game.rules:GAME",
    "lasker-morris": "protocols.lasker_morris.rules:GAME",
    "legionnaires": "protocols.legionnaires.rules:GAME",
    "lielow": "protocols.lielow.rules:GAME",
    "tic-tac-toe": "protocols.tic_tac_toe.rules:GAME",
}
BUILTIN_ALIASES = {
    "laskermorris": BUILTINS["lasker-morris"],
    "lgame": BUILTINS["l-game"],
    "tictactoe": BUILTINS["tic-tac-toe"],
}


def fake_distribution(where: Path, name: str, games: str, aliases: str = "") -> Path:
    """A distribution `name` 0.2 that declares `games` (entry_points.txt lines) and nothing else."""
    info = where / f"{name.replace('-', '_')}-0.2.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.2\n")
    points = f"[referee.games]\n{games}\n"
    if aliases:
        points += f"\n[referee.game_aliases]\n{aliases}\n"
    (info / "entry_points.txt").write_text(points)
    return where


@pytest.fixture
def broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Plug-ins that cannot load: a missing module, a module that fails, a non-game object and
    a game under another name; all installed (as metadata) for this test only."""
    (tmp_path / "failing_game.py").write_text("raise RuntimeError('the rules are unfinished')\n")
    (tmp_path / "not_a_game.py").write_text("GAME = 42\n")
    fake_distribution(
        tmp_path,
        "referee-broken",
        "missing = no_such_module.rules:GAME\nfailing = failing_game:GAME\n"
        "number = not_a_game:GAME\nimpostor = protocols.alak.rules:GAME\n"
        "lgame = not_a_game:GAME\nlielow = not_a_game:GAME\n",
        aliases="gone = no_such_module.rules:GAME\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    protocols.refresh()
    yield tmp_path
    monkeypatch.undo()
    protocols.refresh()


def test_the_builtin_games_come_first_by_name() -> None:
    builtin = [(e.name, e.value, e.aliases) for e in entries() if e.builtin]
    assert builtin == [
        ("alak", BUILTINS["alak"], ()),
        ("l-game", BUILTINS["l-game"], ("lgame",)),
        ("lasker-morris", BUILTINS["lasker-morris"], ("laskermorris",)),
        ("legionnaires", BUILTINS["legionnaires"], ()),
        ("lielow", BUILTINS["lielow"], ()),
        ("tic-tac-toe", BUILTINS["tic-tac-toe"], ("tictactoe",)),
    ]
    assert all(e.distribution == "referee" and e.source == "built-in" for e in entries()[:6])
    assert builtin_names() == list(BUILTINS)


def declared_entry_points() -> dict[str, dict[str, str]]:
    declared: dict[str, dict[str, str]] = tomllib.loads((ROOT / "pyproject.toml").read_text())[
        "project"
    ]["entry-points"]
    return declared


def test_the_game_folders_and_the_entry_points_say_the_same() -> None:
    """A built-in game is found by its folder (no metadata read) and declared by its entry
    points: one folder of `protocols` with a rules module per game, named as pyproject.toml
    names it, with the same aliases."""
    declared = declared_entry_points()
    folders = sorted(
        path.parent.name for path in (ROOT / "protocols").glob("*/rules.py") if path.is_file()
    )
    values = {f"protocols.{folder}.rules:GAME" for folder in folders}
    assert set(declared["referee.games"].values()) == values
    from_folders = {e.name: e.value for e in entries() if e.builtin}
    assert from_folders == declared["referee.games"] == BUILTINS
    aliases = {alias: e.value for e in entries() if e.builtin for alias in e.aliases}
    assert aliases == declared["referee.game_aliases"] == BUILTIN_ALIASES


@pytest.mark.parametrize("name", list(BUILTINS))
def test_every_builtin_game_has_every_part(name: str) -> None:
    """The built-in games are the example of the shape: every part beside the rules."""
    assert parts.module(name, parts.EVALUATION) is not None
    assert parts.module(name, parts.BOARD) is not None
    for filename in (parts.RENDERER, parts.RULES_PAGE, parts.CONFORMANCE):
        assert parts.text(name, filename), filename


def test_the_installed_metadata_is_the_projects_own() -> None:
    """A stale installation (entry points of games that moved or are gone) is caught here: other
    tools read the entry points, and the registry reads them for plug-ins."""
    from importlib import metadata

    installed = {
        ep.name: ep.value
        for ep in metadata.entry_points(group="referee.games")
        if ep.dist is not None and ep.dist.name == "referee"
    }
    assert installed == BUILTINS, "reinstall: pip install -e ."


def test_the_builtin_games_are_there_without_an_installation(tmp_path: Path) -> None:
    # A copy of the source tree on the path, with no installed metadata of the project.
    shutil.copytree(ROOT / "protocols", tmp_path / "protocols")
    script = (
        "import sys; from importlib import metadata\n"
        # No entry point at all, whatever is asked (pydantic asks for its plug-ins by group).
        "metadata.entry_points = lambda *args, **kwargs: metadata.EntryPoints(())\n"
        "from protocols import game_names, canonical_name, get_game\n"
        "print(game_names(), canonical_name('laskermorris'), get_game('alak').name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert done.stdout.split("]")[0] + "]" == str(list(BUILTINS))
    assert done.stdout.split("]")[1].split() == ["lasker-morris", "alak"]


RESOLVE = """
import sys
from protocols import aliases, canonical_name, entries, game_names
assert canonical_name(" LaskerMorris ") == "lasker-morris" and canonical_name("lgame") == "l-game"
assert aliases("l-game") == ("lgame",) and game_names()[:2] == ["alak", "l-game"]
entries()
loaded = [m for m in sys.modules if m.startswith(("protocols.", "pydantic"))]
print(" ".join(sorted(m for m in loaded if m.endswith(".rules") or "." not in m.partition(".")[2])))
"""


def test_names_and_aliases_resolve_without_importing_any_rules() -> None:
    done = subprocess.run(
        [sys.executable, "-c", RESOLVE], cwd=ROOT, capture_output=True, text=True, check=True
    )
    # Only the registry and the games' light `__init__.py` (their names): no rules, no pydantic.
    games = [f"protocols.{value.split('.')[1]}" for value in BUILTINS.values()]
    assert sorted(done.stdout.split()) == sorted(["protocols.registry", *games])


# Counts the scans of installed metadata while a built-in game is resolved, loaded and its parts
# looked up: pydantic's own look-up of its plug-ins is the only one allowed.
NO_SCAN = """
from importlib import metadata
scans = []
real = metadata.entry_points
def counted(*args, **kwargs):
    scans.append(kwargs.get("group"))
    return real(*args, **kwargs)
metadata.entry_points = counted
from protocols import canonical_name, get_game, parts
for name in ("LaskerMorris", "tictactoe", "lgame", "alak"):
    game = get_game(canonical_name(name))
    assert parts.module(name, parts.EVALUATION) is not None
    assert parts.module(name, parts.BOARD) is not None
    assert parts.text(name, parts.RENDERER)
print(" ".join(sorted({str(group) for group in scans})))
"""


def test_a_builtin_game_and_its_parts_are_found_without_reading_installed_metadata() -> None:
    done = subprocess.run(
        [sys.executable, "-c", NO_SCAN], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert set(done.stdout.split()) <= {"pydantic"}  # pydantic may look up its plug-ins


# `referee play` with the registry's scan of installed games made to fail: a built-in game is
# played without it (the isolation still lists the game packages a sandbox must see).
PLAY_WITHOUT_SCAN = """
import runpy, sys
from protocols import registry
def refused():
    raise AssertionError("the installed games were scanned")
registry._plugin_entries = refused
sys.argv = ["referee", *sys.argv[1:]]
runpy.run_module("referee", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("spelling", [["play", "lasker-morris"], ["tictactoe"]])
def test_referee_play_of_a_builtin_game_reads_no_installed_games(
    tmp_path: Path, spelling: list[str]
) -> None:
    args = ["-p1", "builtin:random --seed 1", "-p2", "builtin:random --seed 2", "-nr"]
    done = subprocess.run(
        [sys.executable, "-c", PLAY_WITHOUT_SCAN, *spelling, *args, "--record", "g.jsonl"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "g.jsonl").is_file()


def test_an_unknown_name_lists_the_known_games() -> None:
    with pytest.raises(
        UnknownGame,
        match="known games: alak, l-game, lasker-morris, legionnaires, lielow, tic-tac-toe",
    ):
        canonical_name("chess")


def test_a_broken_plugin_is_listed_and_named_when_loaded(broken: Path) -> None:
    listed = {e.name: e for e in entries()}
    assert listed["missing"].source == "referee-broken 0.2"
    assert canonical_name("gone") == "missing"
    # A plug-in cannot take a built-in game's name or alias.
    assert listed["lielow"].builtin and canonical_name("lgame") == "l-game"
    expected = {
        "missing": "ModuleNotFoundError: No module named 'no_such_module'",
        "gone": "ModuleNotFoundError: No module named 'no_such_module'",
        "failing": "RuntimeError: the rules are unfinished",
        "number": "names a int, not an instance of protocols.base.Game",
        "impostor": "names a game called 'alak'",
    }
    for name, problem in expected.items():
        with pytest.raises(GameNotLoadable) as info:
            get_game(name)
        message = str(info.value)
        assert problem in message
        assert "distribution referee-broken 0.2" in message and "'referee.games'" in message


def test_a_broken_plugin_on_the_command_line_is_a_message_not_a_traceback(
    tmp_path: Path,
) -> None:
    fake_distribution(tmp_path, "referee-broken", "missing = no_such_module.rules:GAME")
    games = run_with(tmp_path, "games")
    assert games.returncode == 0, games.stderr
    assert "missing [plug-in from referee-broken 0.2]" in games.stdout.splitlines()
    play = run_with(tmp_path, "play", "missing", "-p1", "builtin:random", "-p2", "builtin:random")
    assert play.returncode == 2
    assert "Traceback" not in play.stderr
    message = " ".join(play.stderr.split())
    assert "game 'missing' cannot be loaded" in message
    assert "missing = 'no_such_module.rules:GAME'" in message
    assert "referee-broken 0.2" in message and "No module named 'no_such_module'" in message


def run_with(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m referee ARGS` in `path`, with the distributions in `path` installed."""
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        cwd=path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(path)},
    )


def test_the_games_command_lists_the_builtin_games_first() -> None:
    listed = referee("games", cwd=ROOT).stdout.splitlines()
    assert listed[:6] == [
        "alak",
        "l-game (also: lgame)",
        "lasker-morris (also: laskermorris)",
        "legionnaires",
        "lielow",
        "tic-tac-toe (also: tictactoe)",
    ]
