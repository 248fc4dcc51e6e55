"""A command line that cannot be played is refused before anything starts, in the words the user
typed: the flag (`--position-capable p2`, `-t`, `-o sizee`, `--opening`, `-p1`), never a config
key of a file the command wrote itself, never a Python dict, and before the isolation line that
a game which starts prints first."""

from __future__ import annotations

import sqlite3
import tomllib
from pathlib import Path

import pytest

from referee.records import read_record
from tests.commandline import referee_here

PLAY = ["play", "alak", "-o", "size=5", "--no-random-assignment"]
MATCH = ["match", "alak", "-o", "size=5", "--games", "2", "-q"]


def refused(*args: str, cwd: Path) -> str:
    """The one message of a usage error: exit 2, nothing on stdout, nothing written, and no
    isolation line (nothing was about to start)."""
    done = referee_here(*args, cwd=cwd)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert not any(line.startswith("isolation: ") for line in done.stderr.splitlines())
    assert not any(cwd.iterdir()), list(cwd.iterdir())
    message = done.stderr
    if message.startswith("usage: "):  # argparse's: the usage, then the error on its own line
        message = message.partition("\n" + message.split()[1] + " ")[2]
    assert message and "{" not in message, done.stderr  # no dict, Python's or JSON's
    return " ".join(message.split())


def test_a_bot_without_position_is_refused_naming_the_flag_to_give(tmp_path: Path) -> None:
    said = refused(*MATCH, "-p1", "builtin:random", "-p2", "python3 x.py", "--opening-plies", "2",
                   "--name2", "x", cwd=tmp_path)  # fmt: skip
    assert said == (
        "referee: x has not declared the protocol's position extension, so it cannot start from "
        "an opening: give --position-capable p2 if it reads `position K` and the opening's moves "
        "after the colour (docs/protocol.md), or play without --opening-plies and --openings"
    )
    said = refused(*MATCH, "-p1", "python3 y.py", "-p2", "python3 x.py", "--opening-plies", "2",
                   "--position-capable", "p2", cwd=tmp_path)  # fmt: skip
    assert "give --position-capable both if it reads" in said
    said = refused(*PLAY, "-p1", "python3 y.py", "-p2", "builtin:random", "--opening", "c",
                   cwd=tmp_path)  # fmt: skip
    assert "player1 has not declared the protocol's position extension" in said
    assert "give --position-capable p1 if it reads" in said and "play without --opening" in said


@pytest.mark.parametrize("command", ["play", "match"])
def test_an_infinite_time_limit_is_refused_alike_by_play_and_match(
    tmp_path: Path, command: str
) -> None:
    flag = "-t" if command == "play" else "--move-timeout"
    base = PLAY if command == "play" else MATCH
    players = ["-p1", "builtin:random", "-p2", "builtin:greedy"]
    for value in ("inf", "nan", "0", "-1"):
        said = refused(*base, *players, flag, value, cwd=tmp_path)
        assert f"not a time limit: '{value}' (a number of seconds above 0, such as 2.5)" in said
        assert ("-t/--timeout" if command == "play" else "--move-timeout") in said
    said = refused(*base, *players, "--clock", "inf+1", cwd=tmp_path)
    assert "argument --clock: not a clock: 'inf+1'" in said


def test_referee_check_refuses_a_time_it_cannot_keep_naming_the_flag(tmp_path: Path) -> None:
    # Its times default to the course's; one given on the command line is checked as typed.
    for flag, value, said_of in (
        ("-t", "inf", "-t/--timeout: not a time limit"),
        ("-t", "0", "-t/--timeout: not a time limit"),
        ("--grace", "nan", "--grace: not a number of seconds"),
        ("--grace", "inf", "--grace: not a number of seconds"),
        ("--startup", "-1", "--startup: not a number of seconds"),
    ):
        said = refused("check", "tic-tac-toe", "python3 x.py", flag, value, cwd=tmp_path)
        assert f"argument {said_of}: '{value}'" in said


def test_a_built_in_bot_that_does_not_play_the_game_is_a_usage_error(tmp_path: Path) -> None:
    expected = (
        "builtin:perfect plays only l-game and alak, not tic-tac-toe (the built-in bots of "
        "tic-tac-toe: random, greedy, search, applet)"
    )
    said = refused("play", "tic-tac-toe", "-p1", "builtin:perfect", "-p2", "builtin:random",
                   cwd=tmp_path)  # fmt: skip
    assert said == f"referee: -p1: {expected}"
    said = refused("match", "tic-tac-toe", "-p1", "builtin:random", "-p2", "builtin:perfect",
                   cwd=tmp_path)  # fmt: skip
    assert said == f"referee: -p2: {expected}"
    said = refused("check", "tic-tac-toe", "python3 x.py", "--opponent", "perfect", cwd=tmp_path)
    assert said == f"referee check: --opponent: {expected}"
    said = refused("play", "alak", "-p1", "builtin:perfectt", "-p2", "builtin:random",
                   cwd=tmp_path)  # fmt: skip
    assert said.startswith("referee: -p1: builtin:perfectt is not a built-in bot (random, ")


def test_a_tournament_or_course_with_such_a_bot_is_refused_at_its_line(tmp_path: Path) -> None:
    config = tmp_path / "cup.toml"
    config.write_text(
        'name = "cup"\ngame = "tic-tac-toe"\n[[players]]\nname = "a"\ncommand = "builtin:random"\n'
        '[[players]]\nname = "b"\ncommand = "builtin:perfect --seed {seed}"\n'
    )
    done = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2 and "isolation:" not in done.stderr
    assert done.stderr.strip() == (
        "cup.toml:8: players[1].command: builtin:perfect plays only l-game and alak, "
        "not tic-tac-toe (the built-in bots of tic-tac-toe: random, greedy, search, applet)"
    )
    course = tmp_path / "course"
    assert (
        referee_here("course", "new", str(course), "-g", "tic-tac-toe", cwd=tmp_path).returncode
        == 0
    )
    text = (course / "course.toml").read_text()
    # The template offers the games there are and the bots that play this one.
    assert "# alak, l-game, lasker-morris, legionnaires, lielow, tic-tac-toe" in text
    assert "a built-in bot that plays this game: random, greedy, search, applet\n" in text
    assert "perfect" not in text
    (course / "course.toml").write_text(text.replace('opponent = "random"', 'opponent = "perfect"'))
    done = referee_here("course", "check", "-C", str(course), cwd=tmp_path)
    assert done.returncode == 2
    assert "course.toml:30: check.opponent: builtin:perfect plays only l-game and alak" in (
        " ".join(done.stderr.split())
    )


def test_options_are_read_as_their_types_and_an_unknown_one_gets_a_guess(tmp_path: Path) -> None:
    said = refused(*PLAY, "-p1", "builtin:random", "-p2", "builtin:random", "-o", "sizee=7",
                   cwd=tmp_path)  # fmt: skip
    assert said == (
        "referee: -o sizee=7: alak has no option 'sizee': did you mean 'size'? (its options: "
        "size, variant, repetition, ply_limit)"
    )
    said = refused(*MATCH, "-p1", "builtin:random", "-p2", "builtin:greedy", "-o", "size=99",
                   cwd=tmp_path)  # fmt: skip
    assert said == "referee: -o size=99: alak's size is a whole number from 5 to 26 (default 11)"
    done = referee_here("match", "alak", "-o", "size=07", "--games", "2", "-q",
                        "-p1", "builtin:random", "-p2", "builtin:greedy", "--dir", "m",
                        cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert tomllib.loads((tmp_path / "m" / "match.toml").read_text())["game_options"] == {"size": 7}
    # The same match asked for as size=7 resumes it: nothing to play, nothing refused.
    again = referee_here("match", "alak", "-o", "size=7", "--games", "2", "-q",
                         "-p1", "builtin:random", "-p2", "builtin:greedy", "--dir", "m",
                         cwd=tmp_path)  # fmt: skip
    assert again.returncode == 0, again.stderr
    done = referee_here(*PLAY, "-p1", "builtin:random", "-p2", "builtin:random",
                        "-o", "ply_limit=040", "--record", "g.jsonl", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert read_record(tmp_path / "g.jsonl").header.options["ply_limit"] == 40


@pytest.mark.parametrize("opening", ["", " ", ", ,"])
def test_an_empty_opening_is_refused_not_played_from_the_start(
    tmp_path: Path, opening: str
) -> None:
    said = refused(*PLAY, "-p1", "builtin:random", "-p2", "builtin:random", "--opening", opening,
                   cwd=tmp_path)  # fmt: skip
    assert "argument --opening: empty: give the moves of the opening separated by commas" in said


def test_the_isolation_line_comes_after_the_command_line_is_checked(tmp_path: Path) -> None:
    for bad in (["--opening", "zz"], ["-o", "size=3"], ["--isolation", "nonsense"]):
        said = refused(*PLAY, "-p1", "builtin:random", "-p2", "builtin:random", *bad, cwd=tmp_path)
        assert said.startswith("referee: ")
    said = refused(*MATCH, "-p1", "builtin:random", "-p2", "builtin:greedy", "--isolation",
                   "nonsense", cwd=tmp_path)  # fmt: skip
    assert said == (
        "referee: --isolation: unknown isolation feature 'nonsense': use auto, basic, or "
        "sandbox+users+cgroup"
    )
    done = referee_here(*PLAY, "-p1", "builtin:random", "-p2", "builtin:random", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr.startswith("isolation: ")


def test_a_changed_setting_is_said_as_a_config_writes_it(tmp_path: Path) -> None:
    config = tmp_path / "cup.toml"
    text = (
        'name = "cup"\ngame = "alak"\ngames_per_pairing = 1\n[game_options]\nsize = 5\n'
        '[[players]]\nname = "a"\ncommand = "builtin:random"\n'
        '[[players]]\nname = "b"\ncommand = "builtin:greedy"\n'
    )
    config.write_text(text)
    assert referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path).returncode == 0
    config.write_text(text.replace("size = 5", "size = 6\nply_limit = 50"))
    done = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2 and "{" not in said, said
    assert "(game_options.size: 5 -> 6; game_options.ply_limit: 200 -> 50)" in said
    with sqlite3.connect(tmp_path / "cup" / "tournament.sqlite") as db:
        assert db.execute("SELECT count(*) FROM games").fetchone() == (1,)  # kept

    args = ["match", "alak", "-o", "size=5", "--games", "2", "-q", "-p1", "builtin:random",
            "-p2", "builtin:greedy", "--dir", "m"]  # fmt: skip
    assert referee_here(*args, cwd=tmp_path).returncode == 0
    done = referee_here(*args, "--opening-plies", "2", cwd=tmp_path)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2 and "{" not in said and "null" not in said, said
    assert "the openings none (from the start), not --opening-plies 2." in said
