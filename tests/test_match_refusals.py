"""What `referee match` (and `play`, `check`) say when they cannot play, in the words of their
own command line: a bot that cannot start is fixed by its flag (never an option `match` does not
have, never the match.toml it wrote itself); bots whose folders nest are refused before any
folder is made, naming both folders; a command a shell could not split is a usage error, not a
game lost; an option of the wrong type names the option, the value and what it takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.commandline import referee_here

UNTERMINATED = 'python3 "unterminated'
MATCH = ["match", "tic-tac-toe", "--games", "2", "-q"]


def test_a_bot_that_cannot_start_is_fixed_by_its_flag(tmp_path: Path) -> None:
    done = referee_here(*MATCH, "-p1", "python3 nothere.py", "-p2", "builtin:random", cwd=tmp_path)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    assert "nothere: cannot start: " in said and "nothere.py" in said  # why, said above
    assert said.endswith(
        "referee: not starting the match: nothere (-p1) cannot start. Fix the command of -p1 "
        "and run the match again."
    ), said
    assert "--allow-broken" not in said and "match.toml" not in said


def test_nested_bot_folders_are_refused_before_any_folder_is_made(tmp_path: Path) -> None:
    (tmp_path / "alice" / "sub").mkdir(parents=True)
    (tmp_path / "alice" / "main.py").write_text("print('a')\n")
    (tmp_path / "alice" / "sub" / "bot.py").write_text("print('b')\n")
    bots = ["-p1", "python3 alice/main.py", "-p2", "python3 alice/sub/bot.py"]
    done = referee_here(*MATCH, *bots, cwd=tmp_path)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    alice, sub = tmp_path / "alice", tmp_path / "alice" / "sub"
    assert said.startswith(
        f"referee: sub's folder {sub} is inside alice's folder {alice}: alice would run among "
        "sub's files."
    ), said
    assert "match.toml" not in said and "isolation:" not in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alice"]  # no referee-matches


def test_play_refuses_nested_bot_folders_before_anything_is_played(tmp_path: Path) -> None:
    # Under `play` the inner bot would be hidden from itself and lose "by crash": a wrong
    # verdict. Refused as `match` refuses it, before any record or folder is made.
    (tmp_path / "alice" / "bob").mkdir(parents=True)
    (tmp_path / "alice" / "main.py").write_text("print('a')\n")
    (tmp_path / "alice" / "bob" / "main.py").write_text("print('b')\n")
    bots = ["-p1", "python3 alice/bob/main.py", "-p2", "python3 alice/main.py"]
    names = ["--name1", "bob", "--name2", "alice"]
    done = referee_here("play", "tic-tac-toe", *bots, *names, "-nr", cwd=tmp_path)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    alice, bob = tmp_path / "alice", tmp_path / "alice" / "bob"
    assert said.startswith(
        f"referee: bob's folder {bob} is inside alice's folder {alice}: alice would run among "
        "bob's files."
    ), said
    assert "isolation:" not in said and "Game over" not in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alice"]  # no referee-games


@pytest.mark.parametrize(
    ("command", "flag"),
    [
        (["play", "tic-tac-toe", "-p2", "builtin:random", "-p1"], "-p1/--player1"),
        ([*MATCH, "-p1", "builtin:random", "-p2"], "-p2/--player2"),
        (["check", "tic-tac-toe"], "command"),
        (["check", "tic-tac-toe", "builtin:random", "--opponent"], "--opponent"),
    ],
)
def test_a_command_a_shell_could_not_split_is_a_usage_error(
    tmp_path: Path, command: list[str], flag: str
) -> None:
    done = referee_here(*command, UNTERMINATED, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert (
        f"error: argument {flag}: 'python3 \"unterminated' cannot be split into words as a shell "
        "would: no closing quotation"
    ) in said, said
    assert done.stdout == "" and not any(tmp_path.iterdir())


@pytest.mark.parametrize("command", ["play", "match"])
def test_an_option_of_the_wrong_type_names_what_it_takes(tmp_path: Path, command: str) -> None:
    base = ["play", "alak"] if command == "play" else ["match", "alak", "-q"]
    bots = ["-p1", "builtin:random", "-p2", "builtin:greedy"]
    for value, expected in (
        ("abc", "alak's size is a whole number from 5 to 26 (default 11)"),
        ("99", "alak's size is a whole number from 5 to 26 (default 11)"),
    ):
        done = referee_here(*base, *bots, "-o", f"size={value}", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip() == f"referee: -o size={value}: {expected}"
    done = referee_here(*base, *bots, "-o", "ply_limit=soon", cwd=tmp_path)
    assert done.stderr.strip() == (
        "referee: -o ply_limit=soon: alak's ply_limit is a whole number of at least 0 (default 200)"
    )
    assert not any(tmp_path.iterdir())
