"""Traditional Alak end to end: real bot processes through `referee play`, a tournament, and
`referee replay --verify-only`; `pass` under Baljeu's rules loses with its reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from bots.config import BotConfig
from bots.perfect_bot import perfect_chooser
from protocols.alak.rules import GAME
from tests.commandline import referee

PASSER = """\
import sys
sys.stdin.readline()
while True:
    print("pass", flush=True)
    if sys.stdin.readline().strip() in ("", "END"):
        break
"""


def play(tmp_path: Path, *args: str) -> dict[str, object]:
    done = referee(
        "play", "alak", "-o", "variant=traditional", "-o", "size=7", "-nr", "-t", "2",
        "--json", *args, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    verified = referee("replay", "--verify-only", str(result["record"]), cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    return result


def test_built_in_bots_play_it_and_the_record_verifies(tmp_path: Path) -> None:
    result = play(tmp_path, "-p1", "builtin:search --movetime 0.05", "-p2", "builtin:random")
    assert result["reason"] in ("game-ending", "repetition", "ply-limit")
    if result["reason"] == "game-ending":
        assert result["ending"] == "score"
        assert str(result["detail"]).startswith("two passes: blue ")


def test_a_bot_that_always_passes_plays_a_legal_game(tmp_path: Path) -> None:
    (tmp_path / "passer.py").write_text(PASSER)
    bot = f"{sys.executable} passer.py"
    result = play(tmp_path, "-p1", bot, "-p2", "builtin:greedy")
    # Greedy orange takes the empty board: every blue line was legal, the game ended by score.
    assert result["ending"] == "score" and result["winner"] == "orange"


def test_pass_under_baljeus_rules_loses_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "passer.py").write_text(PASSER)
    done = referee(
        "play", "alak", "-nr", "--json", "-p1", f"{sys.executable} passer.py",
        "-p2", "builtin:random", cwd=tmp_path, timeout=120,
    )  # fmt: skip
    result = json.loads(done.stdout)
    assert result["winner"] == "orange" and result["reason"] == "illegal-move"
    assert "no passing under Baljeu's rules" in result["detail"]


def test_a_tournament_of_traditional_alak(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text(
        'name = "trad"\ngame = "alak"\nseed = 4\ngames_per_pairing = 1\nconcurrency = 2\n\n'
        '[game_options]\nvariant = "traditional"\nsize = 6\n\n'
        '[[players]]\nname = "r"\ncommand = "builtin:random --seed {seed}"\n'
        '[[players]]\nname = "g"\ncommand = "builtin:greedy --seed {seed}"\n'
        '[[players]]\nname = "s"\ncommand = "builtin:random --seed 9"\n'
    )
    run = referee("tournament", "run", "t.toml", "-q", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    results = referee("tournament", "results", "t.toml", "-f", "json", cwd=tmp_path)
    games = json.loads(results.stdout)["games"]
    assert len(games) == 3
    for game in games:
        verified = referee("replay", "--verify-only", game["record"], cwd=tmp_path)
        assert verified.returncode == 0 and "alak" in verified.stdout


def test_the_perfect_bot_refuses_the_variant_with_a_reason() -> None:
    options = GAME.parse_options({"variant": "traditional", "size": 6})
    with pytest.raises(ValueError, match="Baljeu's rules only"):
        perfect_chooser(GAME, BotConfig(options=options))


def test_the_web_replay_shows_the_score_and_a_pass(browser: Any, tmp_path: Path) -> None:
    (tmp_path / "passer.py").write_text(PASSER)
    result = play(tmp_path, "-p1", f"{sys.executable} passer.py", "-p2", "builtin:greedy")
    target = tmp_path / "game.html"
    done = referee("replay", "--html", str(result["record"]), "-o", str(target), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = browser.new_page()
    try:
        page.goto(target.as_uri() + "#ply=1")  # blue's first move was `pass`
        page.wait_for_selector('svg.board.alak[data-ply="1"]')
        text = page.text_content("svg.board.alak .hand-text") or ""
        assert text.startswith("score: blue 0, orange 0") and "(blue passed)" in text
        assert page.eval_on_selector_all("svg.board .piece", "els => els.length") == 0
    finally:
        page.close()
