"""The example game plug-ins (examples/connect-four, examples/tic-tac-toe), installed as the
README's test command installs them, play like built-in games: with the built-in bots, in a
tournament, through `replay` and the web view; tic-tac-toe as the course referee frames it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from bots.evaluation import GenericModel, model_for
from protocols import GameNotLoadable, UnknownGame, canonical_name, entry, get_game
from protocols.base import BadSyntax, IllegalMove, Reason, Side
from referee.cli import normalise_argv
from referee.isolation.confinement import public_directories
from referee.match import Match, MatchSettings, PlayerSpec, resolve_command
from referee.records import GameRecord
from referee.replay import build_replay
from referee.verify import verify_record
from referee.views.html_export import replay_html
from referee.web.renderers import plugin_script, renderer_source
from tests.commandline import referee

PLUGINS = {"connect-four": "referee-connect-four", "tic-tac-toe": "referee-tic-tac-toe"}
INSTALL = "pip install -e examples/connect-four -e examples/tic-tac-toe (the README's test command)"
SETTINGS = MatchSettings(
    move_timeout=5.0, grace=0.5, startup_allowance=10.0, random_assignment=False
)


@pytest.fixture(autouse=True)
def installed() -> None:
    """The examples must be installed: a missing one fails with the command that installs it."""
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
    match = Match(game, *players, settings=SETTINGS, record_path=tmp_path / "game.jsonl")
    return await match.play()


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


def test_the_search_uses_the_evaluation_a_plugin_declares() -> None:
    from connect_four.evaluation import evaluate

    connect_four = model_for("connect-four")
    assert isinstance(connect_four, GenericModel) and connect_four.evaluation is evaluate
    tic_tac_toe = model_for("tic-tac-toe")  # declares none: the generic score
    assert isinstance(tic_tac_toe, GenericModel) and tic_tac_toe.evaluation is None


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
    script = plugin_script()
    for game in PLUGINS:
        assert f'R.renderers["{game}"]' in script
        assert f'R.renderers["{game}"]' in renderer_source(game)
    assert renderer_source("alak").startswith("/* Alak")  # built-ins keep their own


async def test_a_plugin_replay_exports_to_html(tmp_path: Path) -> None:
    record = await play("connect-four", "builtin:random --seed 1", "builtin:random", tmp_path)
    page = replay_html(build_replay(record))
    assert 'R.renderers["connect-four"]' in page


# Tic-tac-toe as the course referee has it: `blue` (X, first) and `orange` (O) on the first line,
# moves `<column><row>` with columns a..c and rows 1..3 from the bottom, capitals accepted.
COURSE_STYLE_BOT = """\
import sys

colour = input().strip()
board = {f"{c}{r}": None for c in "abc" for r in "123"}
if colour == "orange":
    board[input().strip().lower()] = "them"
while True:
    move = next(square for square, owner in board.items() if owner is None)
    board[move] = "me"
    print(move.upper(), flush=True)
    try:
        board[input().strip().lower()] = "them"
    except EOFError:
        break
"""


@pytest.mark.parametrize("blue", [True, False])
async def test_a_course_style_tic_tac_toe_bot_plays_unchanged(blue: bool, tmp_path: Path) -> None:
    script = tmp_path / "player.py"
    script.write_text(COURSE_STYLE_BOT)
    course = f"{sys.executable} {script}"
    opponent = "builtin:random --seed 3"
    record = await play(
        "tictactoe", *((course, opponent) if blue else (opponent, course)), tmp_path
    )
    check_clean(record)
    side = Side.BLUE if blue else Side.ORANGE
    mine = [p for p in record.plies if p.side is side]
    assert mine and all(p.received == p.move.upper() and len(p.move) == 2 for p in mine)


def test_tic_tac_toe_notation_is_the_course_notation() -> None:
    game = get_game("tictactoe")
    assert canonical_name("TicTacToe") == "tic-tac-toe"
    assert normalise_argv(["tictactoe", "-p1", "a", "-p2", "b"])[:2] == ["play", "tictactoe"]
    state = game.initial_state(None)
    assert sorted(game.format_move(m) for m in game.legal_moves(state)) == [
        f"{c}{r}" for c in "abc" for r in "123"
    ]
    assert game.format_move(game.parse_move(state, " B2 ")) == "b2"
    for bad in ("b4", "d1", "b 2", "2b", "b22"):
        with pytest.raises(BadSyntax):
            game.parse_move(state, bad)
    state = game.apply(state, game.parse_move(state, "b2"))
    with pytest.raises(IllegalMove, match="already taken"):
        game.parse_move(state, "b2")


def play_lines(game_name: str, lines: list[str]) -> Any:
    game = get_game(game_name)
    state = game.initial_state(None)
    for line in lines:
        state = game.apply(state, game.parse_move(state, line))
    return game.outcome(state)


@pytest.mark.parametrize(
    ("moves", "winner"),
    [
        (["a1", "a2", "b1", "b2", "c1"], Side.BLUE),  # a row
        (["a1", "b1", "a2", "b2", "c3", "b3"], Side.ORANGE),  # a column
        (["a1", "a2", "b2", "a3", "c3"], Side.BLUE),  # a diagonal
        (["c1", "a1", "b2", "a2", "a3"], Side.BLUE),  # the other diagonal
    ],
)
def test_tic_tac_toe_three_in_a_row_wins(moves: list[str], winner: Side) -> None:
    outcome = play_lines("tic-tac-toe", moves)
    assert outcome.winner is winner and outcome.ending == "three-in-a-row"


def test_tic_tac_toe_full_board_is_a_draw() -> None:
    outcome = play_lines("tic-tac-toe", ["a3", "b2", "c3", "b3", "b1", "a1", "a2", "c2", "c1"])
    assert outcome.winner is None and outcome.ending == "board-full"


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
    for package in ("connect_four", "tic_tac_toe"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, package
        where = Path(next(iter(spec.submodule_search_locations))).resolve()
        assert any(where == v or v in where.parents for v in visible), (package, visible)
