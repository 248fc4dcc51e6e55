"""Tournament configs: valid files load; every kind of mistake names the file, line and field."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from referee.app.config import load_config
from referee.tournament.config import ConfigError
from referee.tournament.roster import Roster

GOOD = """\
name = "course"
game = "laskermorris"
seed = 7
games_per_pairing = 2

[game_options]
no_capture_limit = 30

[time_control]
move_timeout = 2.5

[[players]]
name = "alice"
command = "python3 alice.py"
cwd = "bots/alice"

[[players]]
name = "bob"
command = "builtin:random --seed {seed}"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cup.toml"
    path.write_text(textwrap.dedent(text))
    return path


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text))
    return str(caught.value)


def test_a_good_config_loads_with_paths_relative_to_the_file(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, GOOD))
    config = loaded.config
    assert config.player_names == ["alice", "bob"]
    assert loaded.directory == tmp_path / "cup"
    settings = config.match_settings()
    assert settings.move_timeout == 2.5 and settings.random_assignment is False
    alice = Roster.of(loaded).spec("alice", 99)
    assert alice.cwd == (tmp_path / "bots/alice").resolve()
    bob = Roster.of(loaded).spec("bob", 99)
    assert " -m bots random --game lasker-morris" in bob.command
    assert "--options" in bob.command and bob.command.endswith("--seed 99")
    assert config.schedule_key()["game"] == "lasker-morris"


@pytest.mark.parametrize(
    ("replace", "by", "expected"),
    [
        ('command = "python3 alice.py"\n', "", ":12: players[0].command: Field required"),
        ("games_per_pairing = 2", 'games_per_pairing = "two"', ":4: games_per_pairing: Input"),
        ("games_per_pairing = 2", "games_per_pairing = 0", ":4: games_per_pairing: Input"),
        ("move_timeout = 2.5", "move_timout = 2.5", ":10: time_control.move_timout: unknown"),
        ("move_timeout = 2.5", "move_timeout = -1", ":10: time_control.move_timeout: Input"),
        ("move_timeout = 2.5", "clock_total = 0", ":10: time_control.clock_total: Input"),
        ("move_timeout = 2.5", "overload_threshold = 0", ":10: time_control.overload_thr"),
        ('game = "laskermorris"', 'game = "chess"', ":2: game: unknown game 'chess'"),
        ("no_capture_limit = 30", "no_capture_limt = 30", ":7: game_options.no_capture_limt"),
        ('name = "bob"', 'name = "alice"', ":18: players[1].name: duplicate player name"),
        ("seed = 7", 'seed = 7\nformat = "ladder"', ":4: format: Input should be"),
        ("seed = 7", 'seed = 7\nformat = "gauntlet"', ": challengers: a gauntlet needs"),
        ("seed = 7", 'seed = 7\nchallengers = ["carol"]', ":4: challengers[0]: 'carol' is not"),
        ("[time_control]", "[match]\nmax_line_bytes = 2\n[time_control]", ":10: match.max_line"),
        ("[time_control]", "[match]\ngrace = 2\n[time_control]", ":10: match.grace: set by"),
        ("[time_control]", "[match]\nclock_total = 9\n[time_control]", ":10: match.clock_total"),
        ("[time_control]", "[match]\noverload_threshold = 1\n[time_control]", ":10: match.overl"),
    ],
)
def test_mistakes_name_the_file_line_and_field(
    tmp_path: Path, replace: str, by: str, expected: str
) -> None:
    assert replace in GOOD
    message = error_of(tmp_path, GOOD.replace(replace, by, 1))
    assert str(tmp_path / "cup.toml") in message
    assert expected in message, message


def test_the_time_control_table_reaches_the_match_settings(tmp_path: Path) -> None:
    text = GOOD.replace(
        "move_timeout = 2.5",
        "clock_total = 60.0\nclock_increment = 1.5\ngrace = 0.0\noverload_threshold = 0.5",
    )
    settings = load_config(write(tmp_path, text)).config.match_settings()
    assert (settings.clock_total, settings.clock_increment) == (60.0, 1.5)
    assert (settings.grace, settings.overload_threshold) == (0.0, 0.5)
    assert (settings.move_timeout, settings.startup_allowance) == (5.0, 5.0)  # the defaults


def test_the_match_settings_are_built_once_when_the_config_is_read(tmp_path: Path) -> None:
    # Every game, preflight and cluster order of a run is refereed by the one settings object
    # the config was validated with; [match] is typed, not a table read later.
    config = load_config(write(tmp_path, GOOD + "\n[match]\nexit_grace = 0.5\n")).config
    assert config.match_settings() is config.match_settings()
    assert config.match.exit_grace == config.match_settings().exit_grace == 0.5
    assert config.match_settings().random_assignment is False


def test_a_toml_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    message = error_of(tmp_path, GOOD.replace("seed = 7", "seed = = 7"))
    assert message.startswith(f"{tmp_path / 'cup.toml'}: not valid TOML")
    assert "line 3" in message


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    text = GOOD.replace("seed = 7", 'seed = "x"').replace("move_timeout = 2.5", "grace = -1")
    lines = error_of(tmp_path, text).splitlines()
    assert len(lines) == 2
    assert ":3: seed:" in lines[0] and ":10: time_control.grace:" in lines[1]


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the config"):
        load_config(tmp_path / "nope.toml")


def test_a_player_may_have_limits_of_its_own(tmp_path: Path) -> None:
    text = GOOD.replace(
        'cwd = "bots/alice"\n',
        'cwd = "bots/alice"\nlimits = { memory_mb = 2048, open_files = 64 }\n',
    )
    loaded = load_config(write(tmp_path, text))
    alice = Roster.of(loaded).spec("alice", 1)
    assert alice.limits is not None
    assert (alice.limits.memory_mb, alice.limits.open_files) == (2048, 64)
    assert Roster.of(loaded).spec("bob", 1).limits is None  # the tournament's [match.limits]
    bad = GOOD.replace('cwd = "bots/alice"\n', 'cwd = "bots/alice"\nlimits = { memory_mb = 1 }\n')
    message = error_of(tmp_path, bad)
    assert "cup.toml" in message and "players[0].limits.memory_mb" in message


@pytest.mark.parametrize(
    ("replace", "by", "expected"),
    [
        ("move_timeout = 2.5", "move_timout = 2.5",
         ":10: time_control.move_timout: unknown setting: did you mean 'move_timeout'?"),
        ('cwd = "bots/alice"', 'cwdd = "bots/alice"',
         ":15: players[0].cwdd: unknown setting: did you mean 'cwd'?"),
        ("no_capture_limit = 30", "no_capture_limt = 30",
         ":7: game_options.no_capture_limt: unknown setting: did you mean 'no_capture_limit'?"),
        ("[time_control]", "[match]\nexit_grce = 2\n[time_control]",
         ":10: match.exit_grce: unknown setting: did you mean 'exit_grace'?"),
        ("[time_control]", '[match.isolation]\nlevle = "basic"\n[time_control]',
         ":10: match.isolation.levle: unknown setting: did you mean 'level'?"),
        ("seed = 7", "seed = 7\ngames_per_paring = 2",
         ":4: games_per_paring: unknown setting: did you mean 'games_per_pairing'?"),
        ("seed = 7", "seed = 7\nzzz = 2", ":4: zzz: unknown setting (check the spelling)"),
        ("[time_control]", "[openings]\nplyes = 4\n[time_control]",
         ":10: openings.plyes: unknown setting: did you mean 'plies'?"),
        ("seed = 7", 'seed = 7\nformat = "swiss"\nrounds = 4',
         ":5: rounds: unknown setting here: it belongs under [swiss]"),
    ],
)  # fmt: skip
def test_an_unknown_setting_gets_the_one_it_most_likely_meant(
    tmp_path: Path, replace: str, by: str, expected: str
) -> None:
    assert replace in GOOD
    message = error_of(tmp_path, GOOD.replace(replace, by, 1))
    assert f"{tmp_path / 'cup.toml'}{expected}" in message.splitlines(), message


def test_a_course_file_and_a_course_get_the_setting_they_meant(tmp_path: Path) -> None:
    path = write(tmp_path, 'game = "alak"\n[settings]\ntimeot = 3\n[agents]\na = "x"\nb = "y"\n')
    with pytest.raises(ConfigError, match=r"settings\.timeot: unknown setting: did you mean "):
        load_config(path)
    from referee.course.scheme import Course, CourseError, write_skeleton

    write_skeleton(tmp_path / "course", "c", "alak")
    text = (tmp_path / "course" / "course.toml").read_text()
    (tmp_path / "course" / "course.toml").write_text(text.replace("submissions =", "submision ="))
    with pytest.raises(CourseError, match="submision: unknown setting: did you mean 'submissions'"):
        Course(tmp_path / "course")


def test_a_bad_option_of_a_subcommand_shows_that_subcommands_usage(tmp_path: Path) -> None:
    from tests.commandline import referee

    done = referee("tournament", "run", "--bogus", "cup.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: referee tournament run ")
    assert done.stderr.splitlines()[-1] == (
        "referee tournament run: error: unrecognized arguments: --bogus"
    )
    done = referee("laskermorris", "-p1", "a", "-p2", "b", "--bogus", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("usage: referee play ")


def test_a_command_that_cannot_be_split_is_named_with_its_line_among_the_others(
    tmp_path: Path,
) -> None:
    text = GOOD.replace('"python3 alice.py"', "'python3 \"alice.py'").replace(
        "move_timeout = 2.5", "move_timout = 2.5"
    )
    lines = error_of(tmp_path, text).splitlines()
    where = str(tmp_path / "cup.toml")
    assert (
        f"{where}:10: time_control.move_timout: unknown setting: did you mean 'move_timeout'?"
        in lines
    )
    assert (
        f"{where}:14: players[0].command: cannot be split into words: No closing quotation" in lines
    ), lines
    blank = GOOD.replace('"python3 alice.py"', '"   "')
    assert (
        f"{where}:14: players[0].command: the command is empty"
        in error_of(tmp_path, blank).splitlines()
    )
