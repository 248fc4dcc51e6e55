"""The perfect bot's solved tables: built by the referee before the first game that needs them,
and found by the bot at the default isolation."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.solvers import cache
from referee.builtin_tables import table_cache_directory
from referee.match import Match, MatchSettings, PlayerSpec, resolve_command


async def test_a_perfect_bot_gets_its_table_built_and_named(
    private_table_cache: Path,
) -> None:
    command = resolve_command("builtin:perfect", "l-game")
    assert f"--cache-dir {private_table_cache}" in command
    assert "--cache-dir" not in resolve_command("builtin:random", "l-game")
    match = Match(
        "l-game",
        PlayerSpec(name="perfect", command=command),
        PlayerSpec(name="random", command=resolve_command("builtin:random", "l-game")),
        settings=MatchSettings(random_assignment=False),
        seed=1,
    )
    record = await match.play()
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
