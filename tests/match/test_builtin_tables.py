"""The built-in bots' cached files (the perfect bot's solved tables, the search bot's compiled
Lasker Morris core and endgame tables): built by the referee before the first game that needs
them, and found by the bot at the default isolation."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bots.solvers import cache
from protocols.base import Side
from referee.builtin_tables import table_cache_directory
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec, resolve_command
from tests.games import play_game


async def test_a_perfect_bot_gets_its_table_built_and_named(
    private_table_cache: Path,
) -> None:
    command = resolve_command("builtin:perfect", "l-game")
    assert f"--cache-dir {private_table_cache}" in command
    assert "--cache-dir" not in resolve_command("builtin:random", "l-game")
    record = await play_game(
        "l-game",
        PlayerSpec(name="perfect", command=command),
        PlayerSpec(name="random", command=resolve_command("builtin:random", "l-game")),
        settings=MatchSettings(random_assignment=False),
        seed=1,
    )
    assert record.result is not None and not record.result.void, record.result
    # The table was there before the bot started: it came from the referee, since a bot in
    # the sandbox cannot write the folder (it sees it read-only).
    tables = [p.name for p in private_table_cache.iterdir() if p.name != "helpers"]
    assert tables == ["l-game.v1.table"]  # (the compiled helper lives in helpers/)
    assert record.result.bots
    perfect_side = next(s for s, p in record.header.players.items() if p.name == "perfect")
    assert record.result.bots[perfect_side].stderr_tail == ""


def test_the_referee_and_the_bots_agree_where_the_tables_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The referee repeats the bots' rule (it never imports `bots`): they must not drift apart.
    cases = [
        {"REFEREE_CACHE_DIR": str(tmp_path / "explicit"), "XDG_CACHE_HOME": str(tmp_path / "x")},
        {"XDG_CACHE_HOME": str(tmp_path / "xdg")},
        {"HOME": str(tmp_path / "home")},
    ]
    for variables in cases:
        for name in ("REFEREE_CACHE_DIR", "XDG_CACHE_HOME"):
            monkeypatch.delenv(name, raising=False)
        for name, value in variables.items():
            monkeypatch.setenv(name, value)
        assert table_cache_directory() == cache.cache_dir(), variables


@pytest.fixture
def open_table_cache(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache folder every bot user may reach (pytest's own folders are private to root, and
    a contained bot runs as a user of its own), as docs/bots.md advises."""
    folder = Path(tempfile.mkdtemp(prefix="referee-cache-"))
    folder.chmod(0o755)
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


async def test_the_search_bot_plays_lasker_morris_with_the_core_the_referee_built(
    open_table_cache: Path,
) -> None:
    command = resolve_command("builtin:search --movetime 0.05 --verbose", "lasker-morris")
    assert f"--cache-dir {open_table_cache}" in command
    record = await play_game(
        "lasker-morris",
        PlayerSpec(name="search", command=command),
        PlayerSpec(name="random", command=resolve_command("builtin:random", "lasker-morris")),
        settings=MatchSettings(random_assignment=False),
        seed=1,
    )
    assert record.result is not None and not record.result.void, record.result
    # Built before the bot started (its sandbox sees the folder read-only): the compiled core
    # and the endgame tables.
    assert len(list((open_table_cache / "engines").glob("morris-*.so"))) == 1
    assert (open_table_cache / "lasker-morris-endgame4-limit20.v1.table").exists()
    report = record.result.bots[Side.BLUE]
    assert "C core" in report.stderr_tail and "Python core" not in report.stderr_tail
