"""The arena stops at a link another user planted where it writes: `arena new`'s files and
folders, a version's folder, a version's check records. Nothing is written where the link
leads (referee/nofollow.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.arena.preflight import _fresh_folder, unpack_upload
from referee.course.scheme import BuildSettings
from referee.nofollow import PlantedLink
from tests.commandline import referee
from tests.test_planted_links import plant


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """Where the planted links lead: it must stay empty."""
    folder = tmp_path / "target"
    folder.mkdir()
    return folder


def test_arena_new_stops_at_a_planted_link(tmp_path: Path, target: Path) -> None:
    root = tmp_path / "ar"
    root.mkdir()
    plant(root / "grading.toml", target / "grading.toml")
    done = referee("arena", "new", str(root), "--game", "tic-tac-toe", cwd=tmp_path)
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert "Traceback" not in said, said
    assert "grading.toml is a link (made by user" in said, said
    assert list(target.iterdir()) == []


def test_a_versions_folder_planted_as_a_link_is_not_unpacked_into(
    tmp_path: Path, target: Path
) -> None:
    stored = tmp_path / "upload"
    stored.write_text("print('hi')\n")
    versions = tmp_path / "versions"
    plant(versions, target)
    with pytest.raises(PlantedLink, match="is a link"):
        unpack_upload(stored, "main.py", versions / "7", BuildSettings())
    assert list(target.iterdir()) == []


def test_check_records_planted_as_a_link_are_refused(tmp_path: Path, target: Path) -> None:
    checks = tmp_path / "checks"
    plant(checks, target)
    with pytest.raises(PlantedLink, match="is a link"):
        _fresh_folder(checks / "7")
    assert list(target.iterdir()) == []
