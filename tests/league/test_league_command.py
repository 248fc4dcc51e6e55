"""`referee league` as a user runs it: new, add, rate, show, export, and plain errors."""

from __future__ import annotations

from pathlib import Path

from referee.league.config import load_league
from tests.commandline import referee_here

from .conftest import PLAN


def test_new_add_rate_show_export(tmp_path: Path, sources: list[Path]) -> None:
    made = referee_here("league", "new", "course", "--name", "spring", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert referee_here("league", "new", "course", cwd=tmp_path).returncode == 2  # exists already
    added = referee_here("league", "add", "course", "runs", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    assert f"{PLAN.games} games read" in added.stderr
    assert load_league(tmp_path / "course").sources == [f"../runs/{s.name}" for s in sources]
    rated = referee_here("league", "rate", "course", "--bootstrap", "20", cwd=tmp_path)
    assert rated.returncode == 0, rated.stderr
    assert f"0 games read, {PLAN.games} unchanged" in rated.stderr
    assert "tic-tac-toe: first-move advantage" in rated.stderr
    shown = referee_here("league", "show", "course", "--all-versions", "--top", "100", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "bot-000" in shown.stdout and " v2 " in shown.stdout
    exported = referee_here(
        "league", "export", "course", "--html", "site", "--no-replays", cwd=tmp_path
    )
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    assert not (tmp_path / "site" / "replays").exists()


def test_errors_name_the_folder(tmp_path: Path) -> None:
    (tmp_path / "nothing").mkdir()
    shown = referee_here("league", "show", "nothing", cwd=tmp_path)
    assert shown.returncode == 2
    assert "nothing: not a league (no league.toml" in shown.stderr
    referee_here("league", "new", "course", cwd=tmp_path)
    added = referee_here("league", "add", "course", "nothing", cwd=tmp_path)
    assert added.returncode == 2
    assert "nothing: no tournament or match here" in added.stderr
    assert referee_here("league", "show", "course", cwd=tmp_path).returncode == 2  # not rated yet
