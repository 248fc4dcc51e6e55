"""The game registry reads entry points: the built-in games are declared like any plug-in, names
and aliases resolve without importing rules, and a broken plug-in is named, never a traceback.

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
    BUILTIN_FALLBACK,
    GameNotLoadable,
    UnknownGame,
    canonical_name,
    entries,
    get_game,
)
from tests.commandline import referee

ROOT = Path(__file__).resolve().parents[2]
BUILTINS = {
    "lasker-morris": "protocols.lasker_morris:GAME",
    "lielow": "protocols.lielow:GAME",
    "legionnaires": "protocols.legionnaires:GAME",
    "l-game": "protocols.l_game:GAME",
    "alak": "protocols.alak:GAME",
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
        "number = not_a_game:GAME\nimpostor = protocols.alak:GAME\n"
        "lgame = not_a_game:GAME\nlielow = not_a_game:GAME\n",
        aliases="gone = no_such_module.rules:GAME\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    protocols.refresh()
    yield tmp_path
    monkeypatch.undo()
    protocols.refresh()


def test_the_builtin_games_are_found_through_entry_points() -> None:
    builtin = [(e.name, e.value, e.aliases) for e in entries() if e.builtin]
    assert builtin == [
        ("lasker-morris", BUILTINS["lasker-morris"], ("laskermorris",)),
        ("lielow", BUILTINS["lielow"], ()),
        ("legionnaires", BUILTINS["legionnaires"], ()),
        ("l-game", BUILTINS["l-game"], ("lgame",)),
        ("alak", BUILTINS["alak"], ()),
    ]
    assert all(e.distribution == "referee" and e.source == "built-in" for e in entries()[:5])


def test_pyproject_declares_what_the_registry_reads() -> None:
    """The installed metadata is the project's own (a stale install would lose games)."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert declared["referee.games"] == BUILTINS
    installed = [e for e in entries() if e.builtin]
    assert {e.name: e.value for e in installed} == BUILTINS, "reinstall: pip install -e ."
    aliases = {alias: e.value for e in installed for alias in e.aliases}
    assert aliases == declared["referee.game_aliases"], "reinstall: pip install -e ."
    # The table used when the source tree is not installed says the same.
    assert {name: value for name, (value, _) in BUILTIN_FALLBACK.items()} == BUILTINS
    fallback_aliases = {
        a: value for value, spellings in BUILTIN_FALLBACK.values() for a in spellings
    }
    assert fallback_aliases == declared["referee.game_aliases"]


def test_the_builtin_games_are_there_without_an_installation(tmp_path: Path) -> None:
    # A copy of the source tree on the path, with no installed metadata of the project.
    for package in ("protocols",):
        shutil.copytree(ROOT / package, tmp_path / package)
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
    assert done.stdout.split("]")[0] + "]" == str(list(BUILTIN_FALLBACK))
    assert done.stdout.split("]")[1].split() == ["lasker-morris", "alak"]


RESOLVE = """
import sys
from protocols import aliases, canonical_name, entries, game_names
assert canonical_name(" LaskerMorris ") == "lasker-morris" and canonical_name("lgame") == "l-game"
assert aliases("l-game") == ("lgame",) and game_names()[:2] == ["lasker-morris", "lielow"]
entries()
print(" ".join(sorted(m for m in sys.modules if m.startswith(("protocols.", "pydantic")))))
"""


def test_names_and_aliases_resolve_without_importing_any_rules() -> None:
    done = subprocess.run(
        [sys.executable, "-c", RESOLVE], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == []


def test_an_unknown_name_lists_the_known_games() -> None:
    with pytest.raises(UnknownGame, match="known games: lasker-morris, lielow"):
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


def test_the_games_command_keeps_the_builtin_lines() -> None:
    listed = referee("games", cwd=ROOT).stdout.splitlines()
    assert listed[:5] == [
        "lasker-morris (also: laskermorris)",
        "lielow",
        "legionnaires",
        "l-game (also: lgame)",
        "alak",
    ]
