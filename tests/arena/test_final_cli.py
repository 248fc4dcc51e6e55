"""`referee arena final` and `referee arena grades` refuse to pin or grade too early: before the
deadline (unless `--now`), while versions uploaded in time are being checked, before the pin;
and nothing is pinned by a refusal."""

from __future__ import annotations

from pathlib import Path

from referee.arena.folder import open_arena
from tests.arena.final_kit import FIRST_FREE, add_version, bot
from tests.commandline import referee


def test_the_final_is_not_pinned_before_the_deadline_without_now(tmp_path: Path) -> None:
    assert referee("arena", "new", "ar", "-g", "tic-tac-toe", cwd=tmp_path).returncode == 0
    done = referee("arena", "final", "ar", cwd=tmp_path)
    assert done.returncode == 2
    assert "arena.toml sets no deadline" in done.stderr and "--now" in done.stderr
    config = tmp_path / "ar" / "arena.toml"
    text = config.read_text()
    config.write_text(text.replace("# at = 2026-12-15", "at = 2999-12-15"))
    done = referee("arena", "final", "ar", cwd=tmp_path)
    assert done.returncode == 2 and "the deadline is 2999-12-15 23:59:00-05:00" in done.stderr
    grades = referee("arena", "grades", "ar", cwd=tmp_path)
    assert grades.returncode == 2 and "the versions are not pinned yet" in grades.stderr
    arena = open_arena(tmp_path / "ar")
    try:
        assert arena.store.writer.execute("SELECT COUNT(*) FROM finalists").fetchone() == (0,)
    finally:
        arena.close()


def test_after_the_deadline_the_final_waits_for_checks_of_uploads_in_time(
    tmp_path: Path,
) -> None:
    assert referee("arena", "new", "ar", "-g", "tic-tac-toe", cwd=tmp_path).returncode == 0
    config = tmp_path / "ar" / "arena.toml"
    config.write_text(config.read_text().replace("# at = 2026-12-15", "at = 2000-12-15"))
    (tmp_path / "roster.csv").write_text("alice,Alice,student\n")
    assert referee("arena", "accounts", "ar", "roster.csv", cwd=tmp_path).returncode == 0
    arena = open_arena(tmp_path / "ar")
    try:
        add_version(arena, "alice", bot(FIRST_FREE), status="checking")
    finally:
        arena.close()
    done = referee("arena", "final", "ar", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "1 versions uploaded in time are still being built or checked" in done.stderr
