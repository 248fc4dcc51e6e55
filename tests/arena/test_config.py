"""arena.toml: what `arena new` writes reads back as the defaults it documents, a course's
settings carry over, and every problem names the file, the line and the field."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from referee.arena.config import ArenaConfig, ArenaConfigError, read_config
from referee.arena.folder import ArenaError, new_arena, open_arena, read_secret
from referee.course.scheme import write_skeleton
from referee.match.settings import TimeSettings


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    new_arena(tmp_path / "ar", game="tic-tac-toe", name="Ladder")
    return tmp_path / "ar"


def rewrite(folder: Path, old: str, new: str) -> Path:
    path = folder / "arena.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return path


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_the_template_holds_the_defaults_it_documents(folder: Path) -> None:
    config = read_config(folder / "arena.toml")
    defaults = ArenaConfig(name="Ladder", game="tic-tac-toe")
    # [match] is written out (the limits a TA is likely to change) where the default is empty.
    assert config.model_dump(exclude={"match"}) == defaults.model_dump(exclude={"match"})
    assert config.match_settings() == defaults.match_settings()
    assert all(len(line) <= 100 for line in (folder / "arena.toml").read_text().splitlines())


def test_the_arena_folder_is_made_whole(folder: Path) -> None:
    for name in ("arena.toml", "grading.toml", "arena.sqlite", "secret.key"):
        assert (folder / name).is_file()
    for name in ("uploads", "versions", "games"):
        assert (folder / name).is_dir()
    for secret in ("secret.key", "arena.sqlite"):
        assert stat.S_IMODE((folder / secret).stat().st_mode) == 0o600
    with pytest.raises(ArenaError, match="there is an arena here already"):
        new_arena(folder, game="alak")


def test_a_key_others_can_read_is_refused(folder: Path) -> None:
    os.chmod(folder / "secret.key", 0o644)
    with pytest.raises(ArenaError, match="chmod 600"):
        read_secret(folder / "secret.key")
    with pytest.raises(ArenaError, match="open to other users"):
        open_arena(folder)


def test_a_course_s_settings_carry_over(tmp_path: Path) -> None:
    write_skeleton(tmp_path / "course", "CS 1", "alak")
    course = tmp_path / "course" / "course.toml"
    text = course.read_text().replace("move_timeout = 2.0", "move_timeout = 3.5")
    text = text.replace('isolation = "auto"', 'isolation = "basic"')
    text = text.replace("max_files = 2000", "max_files = 77")
    course.write_text(text)
    (tmp_path / "course" / "grading.toml").write_text("clean = 42.0\n")
    new_arena(tmp_path / "ar", from_course=course)
    config = read_config(tmp_path / "ar" / "arena.toml")
    assert (config.name, config.game) == ("CS 1", "alak")
    assert config.time_control == TimeSettings(move_timeout=3.5, grace=0.5, startup_allowance=5.0)
    assert config.match_settings().isolation.level == "basic"
    assert config.build.max_files == 77
    assert (tmp_path / "ar" / "grading.toml").read_text() == "clean = 42.0\n"


def test_a_broken_course_is_reported_with_its_line(tmp_path: Path) -> None:
    write_skeleton(tmp_path / "course", "CS 1", "alak")
    course = tmp_path / "course" / "course.toml"
    course.write_text(course.read_text().replace("max_files = 2000", "max_files = -1"))
    with pytest.raises(ArenaError, match=r"course\.toml:\d+: build\.max_files"):
        new_arena(tmp_path / "ar", from_course=course)
    assert not (tmp_path / "ar").exists()


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        ("placement_games = 6", "placemant_games = 6", "schedule.placemant_games",
         "did you mean 'placement_games'"),
        ("per_hour = 10", "per_hour = 0", "uploads.per_hour", "greater than or equal to 1"),
        ('leaderboard = "participants"', 'leaderboard = "everyone"', "visibility.leaderboard",
         "'hidden', 'participants' or 'public'"),
        ('game = "tic-tac-toe"', 'game = "chess"', "game", "chess"),
        ("move_timeout = 5.0", "move_timeout = -1", "time_control.move_timeout", "greater than 0"),
        ("exit_grace = 1.0", "move_timeout = 1.0", "match.move_timeout",
         "set by [time_control]"),
        ("memory_mb = 1024", "memory_mb = 1", "match.limits.memory_mb", "greater than or equal"),
        ("# at = 2026-12-15T23:59:00-05:00", "at = 2026-12-15T23:59:00", "deadline.at",
         "time zone"),
        ('# url = "https://arena.example.edu"', 'url = "https://arena.example.edu/x?y"',
         "server.url", "without a path"),
        ('scheme = "grading.toml"', 'scheme = "missing.toml"', "grades.scheme", "no such file"),
        ("[game_options]", "[game_options]\nboard = 4", "game_options.board", ""),
    ],
)  # fmt: skip
def test_every_problem_names_file_line_and_field(
    folder: Path, old: str, new: str, field: str, message: str
) -> None:
    path = rewrite(folder, old, new)
    with pytest.raises(ArenaConfigError) as caught:
        read_config(path)
    first_new_line = new.splitlines()[-1]
    expected = f"{path}:{line_of(path, first_new_line)}: {field}: "
    assert str(caught.value).startswith(expected), str(caught.value)
    assert message in str(caught.value)


def test_a_broken_grading_scheme_is_reported_at_once(folder: Path) -> None:
    (folder / "grading.toml").write_text("clean = 'many'\n")
    with pytest.raises(ArenaConfigError) as caught:
        read_config(folder / "arena.toml")
    text = str(caught.value)
    assert "arena.toml:" in text and "grades.scheme: the scheme is not valid" in text
    assert "grading.toml:1: clean:" in text


def test_not_toml_is_reported_with_the_file(folder: Path) -> None:
    (folder / "arena.toml").write_text("name = \n")
    with pytest.raises(ArenaConfigError, match=r"arena\.toml: not valid TOML"):
        read_config(folder / "arena.toml")
