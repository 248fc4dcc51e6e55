"""The course runner's tournament file, read unchanged: its fields translated, its mistakes
reported at its own lines and fields, and the example from the course's documentation played
end to end (with built-in bots in place of the students' programs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.app.config import load_config
from referee.tournament.config import ConfigError
from referee.tournament.formats import plan_for
from referee.tournament.store import GameState, open_view
from tests.commandline import referee_here

# The "Basic Tic-tac-toe Tournament" of the course's configuration guide, its commands replaced
# by built-in bots (each game's seed fills `{seed}`).
DOCS_EXAMPLE = """\
game = "tictactoe"

[settings]
timeout = 3
visual = false
random_assignment = true

[agents]
player1 = "builtin:random --seed {seed}"
player2 = "builtin:random --seed {seed}"
player3 = "builtin:greedy --seed {seed}"
player4 = "builtin:random --seed {seed}"
player5 = "builtin:random --seed {seed}"
player6 = "builtin:greedy --seed {seed}"
player7 = "builtin:random --seed {seed}"
player8 = "builtin:random --seed {seed}"
"""

WITH_GROUPS = """\
game = "laskermorris"

[settings]
timeout = 10
visual = false
random_assignment = true

[groups]
"Group A" = ["team1", "team2", "team3", "team4"]
"Group B" = ["team5", "team6", "team7", "team8"]

[agents]
team1 = "python3 ${SUBMISSIONS_DIR}/team1/player.py"
team2 = "python3 submissions/team2/player.py"
team3 = "python3 submissions/team3/player.py"
team4 = "python3 submissions/team4/player.py"
team5 = "python3 submissions/team5/player.py"
team6 = "python3 submissions/team6/player.py"
team7 = "python3 submissions/team7/player.py"
team8 = "python3 submissions/team8/player.py"
"""


def test_the_course_file_becomes_a_group_stage_tournament(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUBMISSIONS_DIR", "/srv/subs")
    path = tmp_path / "course.toml"
    path.write_text(WITH_GROUPS)
    config = load_config(path).config
    assert (config.name, config.game, config.format) == ("course", "lasker-morris", "stages")
    assert config.games_per_pairing == 2 and config.time_control.move_timeout == 10
    assert config.players[0].command == "python3 /srv/subs/team1/player.py"
    assert list(config.stages.groups) == ["Group A", "Group B"]
    plan = plan_for(config, [])
    assert [g.name for g in plan.stages[0].groups] == ["Group A", "Group B"]
    assert len(plan.new) == 24  # two groups of four, every pairing once with each colour


def test_the_course_file_plays_by_the_course_rules_unless_told_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUBMISSIONS_DIR", "/srv/subs")
    path = tmp_path / "course.toml"
    path.write_text(WITH_GROUPS)
    config = load_config(path).config
    settings = config.match_settings()
    assert (settings.move_timeout, settings.startup_allowance, settings.grace) == (10, 0.0, 0.5)
    assert config.game_options == {"repetition": 0}  # the course code never checks repetition
    path.write_text(
        WITH_GROUPS + "[referee]\ngame_options = { repetition = 3 }\n"
        "time_control = { startup_allowance = 5.0 }\n"
    )
    config = load_config(path).config
    assert config.match_settings().startup_allowance == 5.0
    assert config.match_settings().move_timeout == 10
    assert config.game_options == {"repetition": 3}
    path.write_text(DOCS_EXAMPLE)  # tic-tac-toe has no repetition rule to switch off
    assert load_config(path).config.game_options == {}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (('"team8"]', '"team9"]'), ":10: groups.Group B[3]: 'team9' is not a player"),
        (("visual = false", "visul = false"), ":5: settings.visul: unknown setting"),
        (("timeout = 10", "timeout = -1"), ":4: settings.timeout: Input should be greater"),
        (('team3 = "python3', "team3 = 3 #"), ":15: agents.team3: the command must be a string"),
        (("${SUBMISSIONS_DIR}", "${NOT_SET_ANYWHERE}"), ":13: agents.team1: ${NOT_SET_ANYWHERE}"),
        (('game = "laskermorris"', 'game = "checkers"'), ":1: game: unknown game"),
        (('"team5", "team6"', '"team1", "team6"'), ":10: groups.Group B[0]: 'team1' is in more"),
    ],
)
def test_mistakes_are_reported_at_the_course_files_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: tuple[str, str], expected: str
) -> None:
    monkeypatch.setenv("SUBMISSIONS_DIR", "/srv/subs")
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    path = tmp_path / "course.toml"
    path.write_text(WITH_GROUPS.replace(*change))
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert f"{path}{expected}" in str(raised.value), str(raised.value)


def test_a_referee_table_sets_this_referees_own_settings(tmp_path: Path) -> None:
    path = tmp_path / "course.toml"
    path.write_text(DOCS_EXAMPLE + '\n[referee]\nseed = 9\ndirectory = "out"\n')
    loaded = load_config(path)
    assert (loaded.config.seed, loaded.directory) == (9, tmp_path / "out")


def test_the_docs_example_is_played_end_to_end(tmp_path: Path) -> None:
    path = tmp_path / "tournament.toml"
    path.write_text(DOCS_EXAMPLE)
    done = referee_here("tournament", "run", str(path), "--quiet", "-j", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    view = open_view(tmp_path / "tournament")
    try:
        rows = view.games()
        plan = plan_for(load_config(path).config, rows)
    finally:
        view.close()
    assert {row.state for row in rows} == {GameState.FINISHED}
    # Two groups of four (24 games), one group of the four who advanced (12), the final and the
    # third-place match (2 games each, and 2 extra games for any that was level).
    names = [stage.name for stage in plan.stages]
    assert names == ["First Round", "Second Round", "Final Round"]
    assert 40 <= len(rows) <= 44 and plan.finished
    advanced = {line.name for g in plan.stages[0].groups for line in g.lines if line.advances}
    assert set(plan.stages[1].groups[0].players) == advanced and len(advanced) == 4
    final, third = plan.stages[2].ties
    assert {final.first, final.second, third.first, third.second} == advanced
    assert plan.placings[:4] == [final.winner, *(p for p in (final.first, final.second)
                                                 if p != final.winner), third.winner,
                                 *(p for p in (third.first, third.second)
                                   if p != third.winner)]  # fmt: skip
    assert sorted(plan.placings) == [f"player{i}" for i in range(1, 9)]

    table = referee_here("tournament", "results", str(path), cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    for title in ("First Round: Group A", "First Round: Group B", "Second Round: Group A"):
        assert title in table.stdout
    assert "Championship" in table.stdout and "Third Place Match" in table.stdout
    first = re.search(rf"^ ?1 │ {plan.placings[0]} +│ won the Championship", table.stdout, re.M)
    assert first is not None, table.stdout
    assert table.stdout.index("Final order") < table.stdout.index("Standings")
    standings = table.stdout[table.stdout.index("Standings") :]
    assert standings.index(plan.placings[0]) < standings.index(plan.placings[1])

    again = referee_here("tournament", "replay", str(path), "--player", "player1", cwd=tmp_path)
    assert again.returncode == 2 and "cannot be played again" in again.stderr

    csv = referee_here("tournament", "results", str(path), "--format", "course-csv", cwd=tmp_path)
    assert csv.returncode == 0, csv.stderr
    lines = csv.stdout.splitlines()
    assert lines[0] == "Round,Group,Game Number,Player 1,Player 2,Winner,Is Draw,Error"
    assert len(lines) == 1 + len(rows)
    assert lines[1].startswith("First Round,Group A,1,")
    assert any(line.startswith("Final Round,Championship,1,") for line in lines)
    assert any(line.startswith("Final Round,Third Place Match,1,") for line in lines)
