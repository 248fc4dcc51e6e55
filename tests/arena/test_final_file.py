"""The final's tournament file (`[final] tournament`): what `arena new` writes (from a course's
settings with `--from`), both formats the final reads, and every problem reported when arena.toml
is read (week one, not the deadline) at the file's own line and field."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from referee.arena.config import ArenaConfigError, read_config
from referee.arena.final_file import final_config, read_final_file
from referee.arena.folder import new_arena
from referee.course.scheme import write_skeleton


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    new_arena(tmp_path / "ar", game="tic-tac-toe", name="Ladder")
    return tmp_path / "ar"


def line_of(path: Path, text: str, *, last: bool = False) -> int:
    """The first (or last) line of `path` holding `text`."""
    found = [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    return found[-1] if last else found[0]


def problem(folder: Path) -> str:
    with pytest.raises(ArenaConfigError) as caught:
        read_config(folder / "arena.toml")
    text = str(caught.value)
    where = f"{folder / 'arena.toml'}:{line_of(folder / 'arena.toml', 'tournament = ')}: "
    assert text.startswith(where + "final.tournament: "), text
    return text


def test_the_final_file_arena_new_writes_reads_back(folder: Path) -> None:
    config = read_config(folder / "arena.toml")
    assert config.final.tournament == Path("tournament.toml")
    written = tomllib.loads((folder / "tournament.toml").read_text())
    assert written["game"] == "tic-tac-toe" and written["format"] == "round-robin"
    assert written["players"] == [
        {"name": "builtin-random", "command": "builtin:random --seed {seed}"}
    ]


@pytest.mark.parametrize(
    ("old", "new", "at", "field", "message"),
    [
        ('command = "builtin:random --seed {seed}"',
         'command = "builtin:random --seed {seed}"\n[[players]]\nname = "alice"\n'
         'command = "python3 alice.py"', "[[players]]", "players[1]",
         "the final's players are the students' versions pinned at the deadline"),
        ('name = "builtin-random"', 'name = "random"', "[[players]]", "players[0]",
         "name it builtin-..., as every baseline is"),
        ('game = "tic-tac-toe"', 'game = "alak"', "game =", "game",
         "the final plays the arena's game, tic-tac-toe, not alak"),
        ('format = "round-robin"', 'format = "stages"\n[stages]\ngroups = { A = ["x", "y"] }',
         "groups =", "stages.groups", "its groups are drawn by the seed"),
        ('format = "round-robin"',
         'format = "knockout"\n[knockout]\nseeding = "ratings"\nratings_from = "old"',
         "seeding =", "knockout.seeding", "seed them with seeding = 'random'"),
        ("games_per_pairing = 2", "gamez_per_pairing = 2", "gamez", "gamez_per_pairing",
         "did you mean 'games_per_pairing'"),
        ("games_per_pairing = 2", "games_per_pairing = 0", "games_per_pairing",
         "games_per_pairing", "greater than or equal to 1"),
        ("[[players]]", "[time_control]\nmove_timeout = -1\n[[players]]", "move_timeout",
         "time_control.move_timeout", "greater than 0"),
    ],
)  # fmt: skip
def test_every_problem_of_the_final_names_its_own_line(
    folder: Path, old: str, new: str, at: str, field: str, message: str
) -> None:
    final = folder / "tournament.toml"
    text = final.read_text()
    assert old in text
    final.write_text(text.replace(old, new, 1))
    found = problem(folder)
    assert "the final's tournament file is not valid:\n" in found
    line = line_of(final, at, last=True)
    assert f"{final}:{line}: {field}: " in found and message in found, found


def test_a_scheme_s_baseline_must_play_in_the_final(folder: Path) -> None:
    final = folder / "tournament.toml"
    text = final.read_text()
    final.write_text(text[: text.index("[[players]]")])
    found = problem(folder)
    assert "the grading scheme gives points for beating builtin-random, which does not play" in (
        found
    )
    (folder / "grading.toml").write_text("clean = 10.0\n")  # no baselines: none needed
    read_config(folder / "arena.toml")


def test_a_missing_or_unreadable_final_file_is_named(folder: Path) -> None:
    (folder / "tournament.toml").write_text("game = \n")
    assert f"{folder / 'tournament.toml'}: not valid TOML" in problem(folder)
    (folder / "tournament.toml").write_bytes(b"game = '\xff'\n")
    assert f"{folder / 'tournament.toml'}: cannot read the final's tournament file" in (
        problem(folder)
    )
    (folder / "tournament.toml").unlink()
    assert "no such file: " in problem(folder)


COURSE_FILE = """\
game = "tic-tac-toe"

[settings]
timeout = 2
visual = false

[agents]
builtin-random = "builtin:random --seed {seed}"
"""


def test_the_course_runner_s_file_is_read_as_a_group_stage(folder: Path) -> None:
    (folder / "tournament.toml").write_text(COURSE_FILE)
    config = read_config(folder / "arena.toml")
    final = read_final_file(folder / "tournament.toml")
    made = final_config(
        final,
        name="Ladder",
        game_options={},
        time_control=config.time_control.model_dump(exclude_none=True),
        match=config.match_entries(),
        concurrency=None,
        entrants=[],
    )
    assert made["format"] == "stages" and made["games_per_pairing"] == 2
    assert made["time_control"]["move_timeout"] == 2
    assert made["time_control"]["startup_allowance"] == 0.0  # the course runner gives none
    assert made["time_control"]["grace"] == config.time_control.grace  # the arena's
    assert made["match"]["isolation"] == {"level": "auto"}  # the arena's containment
    assert made["directory"] == "." and made["name"] == "Ladder: the final"


@pytest.mark.parametrize(
    ("added", "field", "message"),
    [
        ('team3 = "python3 team3/bot.py"', "agents.team3",
         "the final's players are the students' versions"),
        ('\n[groups]\n"Group A" = ["builtin-random", "team3"]', "groups",
         "the final's players are the students' versions pinned at the deadline: its groups"),
    ],
)  # fmt: skip
def test_the_course_runner_s_students_are_refused_at_their_line(
    folder: Path, added: str, field: str, message: str
) -> None:
    final = folder / "tournament.toml"
    final.write_text(COURSE_FILE + added + "\n")
    found = problem(folder)
    line = line_of(final, added.strip().splitlines()[0])
    assert f"{final}:{line}: {field}: {message}" in found, found


def test_arena_new_from_a_course_takes_its_tournament(tmp_path: Path) -> None:
    write_skeleton(tmp_path / "course", "CS 1", "alak")
    course = tmp_path / "course" / "course.toml"
    text = course.read_text().replace("seed = 1", "seed = 42")
    text = text.replace('baselines = ["random"]', 'baselines = ["greedy"]')
    course.write_text(text.replace("games_per_pairing = 2", "games_per_pairing = 4"))
    new_arena(tmp_path / "ar", from_course=course)
    config = read_config(tmp_path / "ar" / "arena.toml")  # the final checked with it
    assert config.final.tournament == Path("tournament.toml")
    written = tomllib.loads((tmp_path / "ar" / "tournament.toml").read_text())
    assert (written["game"], written["seed"], written["games_per_pairing"]) == ("alak", 42, 4)
    # The course's baselines, and the scheme's (it gives points for beating random).
    assert [p["name"] for p in written["players"]] == ["builtin-greedy", "builtin-random"]
