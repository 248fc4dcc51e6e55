"""The example game plug-in (examples/connect-four), installed as the README's test command
installs it, plays like a built-in game: with the built-in bots, in a tournament, through
`replay`, the terminal and the web view, its parts found beside its rules."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from bots.evaluation import model_for
from protocols import GameNotLoadable, UnknownGame, entry, get_game
from protocols.base import IllegalMove, Reason, Side
from protocols.search import GenericModel
from referee.isolation.confinement import public_directories
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec, resolve_command
from referee.records import GameRecord
from referee.replay import build_replay
from referee.verify import verify_record
from referee.views.boards import draw_board
from referee.web.html_export import replay_html
from referee.web.renderers import all_renderers, renderer_source
from tests.commandline import referee
from tests.games import play_game

PLUGINS = {"connect-four": "referee-connect-four"}
INSTALL = "pip install -e examples/connect-four (the README's test command)"
SETTINGS = MatchSettings(
    move_timeout=5.0, grace=0.5, startup_allowance=10.0, random_assignment=False
)


@pytest.fixture(autouse=True)
def installed() -> None:
    """The example must be installed: a missing one fails with the command that installs it."""
    for name, distribution in PLUGINS.items():
        try:
            found = entry(name)
            get_game(name)
        except (UnknownGame, GameNotLoadable) as exc:
            pytest.fail(f"{exc}\ninstall the example plug-ins: {INSTALL}")
        assert found.distribution == distribution and not found.builtin


async def play(game: str, blue: str, orange: str, tmp_path: Path) -> GameRecord:
    players = [
        PlayerSpec(name=name, command=resolve_command(command, game))
        for name, command in (("blue", blue), ("orange", orange))
    ]
    return await play_game(game, *players, settings=SETTINGS, record_path=tmp_path / "game.jsonl")


def check_clean(record: GameRecord) -> None:
    result = record.result
    assert result is not None
    assert not result.void and not result.reason.is_bot_fault, result.detail
    assert result.reason is Reason.GAME_ENDING
    verification = verify_record(record)
    assert verification.ok, verification.problems


@pytest.mark.parametrize("game", sorted(PLUGINS))
@pytest.mark.parametrize("bot", ["greedy --seed 2", "search --movetime 0.05 --seed 2"])
async def test_a_plugin_game_is_played_by_the_builtin_bots(
    game: str, bot: str, tmp_path: Path
) -> None:
    record = await play(game, f"builtin:{bot}", "builtin:random --seed 5", tmp_path)
    check_clean(record)
    assert all(report.exit_code == 0 for report in record.result.bots.values())  # type: ignore[union-attr]


def test_the_search_uses_the_evaluation_beside_the_rules() -> None:
    from connect_four.evaluation import evaluate

    connect_four = model_for("connect-four")
    assert isinstance(connect_four, GenericModel) and connect_four.evaluation is evaluate
    assert model_for("connect4") is not connect_four  # a fresh model for each bot


def test_the_terminal_draws_the_board_beside_the_rules() -> None:
    game = get_game("connect-four")
    state = game.initial_state(None)
    for move in (3, 3, 2):
        state = game.apply(state, move)
    marks = {"from": [], "to": ["c1"], "removed": []}
    plain = draw_board("connect-four", game.state_json(state), marks, colour=False).plain
    rows = plain.splitlines()
    assert rows[6].split() == ["1", "·", "·", "B", "B", "·", "·", "·", "1"]
    assert rows[5].split() == ["2", "·", "·", "·", "O", "·", "·", "·", "2"]
    assert "last move: to c1" in plain


TOURNAMENT = """\
name = "plug-in cup"
game = "connect4"
seed = 4
games_per_pairing = 1
concurrency = 2

[[players]]
name = "random"
command = "builtin:random --seed {seed}"
[[players]]
name = "greedy"
command = "builtin:greedy --seed {seed}"
[[players]]
name = "search"
command = "builtin:search --depth 2 --seed {seed}"
"""


def test_a_small_tournament_of_a_plugin_game(tmp_path: Path) -> None:
    (tmp_path / "cup.toml").write_text(TOURNAMENT)
    run = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    results = referee("tournament", "results", "cup.toml", "-f", "json", cwd=tmp_path)
    report = json.loads(results.stdout)
    assert report["counts"]["finished"] == 3
    assert {g["reason"] for g in report["games"]} <= {"game-ending"}
    for played in report["games"]:
        replay = referee("replay", played["record"], cwd=tmp_path)
        assert replay.returncode == 0, replay.stderr
        assert "verified: connect-four" in replay.stderr


def test_the_web_view_and_the_html_export_carry_the_plugin_renderers(tmp_path: Path) -> None:
    script = all_renderers()
    for game in PLUGINS:
        assert f'R.renderers["{game}"]' in script
        assert f'R.renderers["{game}"]' in renderer_source(game)
    assert renderer_source("alak").startswith("/* Alak")  # built-ins have theirs the same way
    assert 'R.renderers["alak"]' in script


async def test_a_plugin_replay_exports_to_html(tmp_path: Path) -> None:
    record = await play("connect-four", "builtin:random --seed 1", "builtin:random", tmp_path)
    page = replay_html(build_replay(record))
    assert 'R.renderers["connect-four"]' in page


def play_lines(game_name: str, lines: list[str]) -> Any:
    game = get_game(game_name)
    state = game.initial_state(None)
    for line in lines:
        state = game.apply(state, game.parse_move(state, line))
    return game.outcome(state)


def test_connect_four_drops_and_wins() -> None:
    game = get_game("connect-four")
    state = game.initial_state(None)
    for line in ["d", "d", "d", "d", "d", "d"]:
        state = game.apply(state, game.parse_move(state, line))
    with pytest.raises(IllegalMove, match="column is full"):
        game.parse_move(state, "d")
    assert game.touched(game.initial_state(None), 3).to == ("d1",)
    outcome = play_lines("connect-four", ["a", "a", "b", "b", "c", "c", "d"])
    assert outcome.winner is Side.BLUE and outcome.ending == "four-in-a-row"
    diagonal = ["a", "b", "b", "c", "c", "d", "c", "d", "d", "g", "d"]
    assert play_lines("connect-four", diagonal).winner is Side.BLUE


def test_sandboxed_bots_see_every_installed_plugin() -> None:
    # The built-in bots import a plug-in game's rules: wherever the plug-in is installed (an
    # editable install in /tmp or a home directory, which the sandbox hides), its package is
    # among the directories a sandboxed bot may read.
    visible = public_directories()
    for package in ("connect_four", "protocols"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, package
        where = Path(next(iter(spec.submodule_search_locations))).resolve()
        assert any(where == v or v in where.parents for v in visible), (package, visible)
