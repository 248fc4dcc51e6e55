"""The built-in bots play exactly as they always did: for each game, games of the search bot (at a
fixed depth, so the clock plays no part) and of the greedy bot against themselves, from the start
and with given seeds, give the moves, scores and node counts kept in `same_play.json`.

After a deliberate change to a bot's play, write the file again and read the difference:
`python -m tests.bots.test_same_play`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bots.clock import unlimited
from bots.config import BotConfig
from bots.evaluation import model_for
from bots.greedy_bot import greedy_chooser
from bots.search.engine import Search
from protocols import get_game
from protocols.base import Side

KEPT = Path(__file__).with_name("same_play.json")
# game -> (options, seed, depth) of each game the search bot plays against itself.
SEARCHED: dict[str, list[tuple[dict[str, Any], int, int]]] = {
    "lasker-morris": [({}, 1, 3), ({}, 2, 2)],
    "lielow": [({}, 1, 3), ({}, 2, 2)],
    "legionnaires": [({}, 1, 3), ({}, 2, 2)],
    "l-game": [({}, 1, 3)],
    "alak": [({}, 1, 4), ({"variant": "traditional", "size": 9}, 2, 3)],
    "tic-tac-toe": [({}, 1, 9), ({}, 2, 3)],
    "connect-four": [({}, 1, 4)],
}
PLIES = 16


def search_game(name: str, options: dict[str, Any], seed: int, depth: int) -> list[str]:
    """`move score nodes` of each search of a game between two search bots seeded `seed`."""
    game = get_game(name)
    state = game.initial_state(game.parse_options(options))
    searches = {side: Search(model_for(name), seed) for side in Side}
    played = []
    while game.outcome(state) is None and len(played) < PLIES:
        search = searches[state.to_move]
        result = search.choose(state, unlimited(), depth)
        played.append(f"{game.format_move(result.move)} {result.score} {result.nodes}")
        search.housekeeping()
        state = game.apply(state, result.move)
    return played


def greedy_game(name: str, seed: int) -> list[str]:
    """The moves of a game between two greedy bots, as bots/greedy_bot.py chooses them."""
    game = get_game(name)
    state = game.initial_state(None)
    options = game.parse_options({})
    choosers = {
        side: greedy_chooser(game, BotConfig(seed=seed + i, movetime=1.0, options=options))
        for i, side in enumerate(Side)
    }
    played = []
    while game.outcome(state) is None and len(played) < PLIES:
        move = choosers[state.to_move](state, unlimited())
        played.append(game.format_move(move))
        state = game.apply(state, move)
    return played


def play(name: str) -> dict[str, list[list[str]]]:
    return {
        "search": [search_game(name, *case) for case in SEARCHED[name]],
        "greedy": [greedy_game(name, seed) for seed in (1, 2)],
    }


@pytest.mark.parametrize("name", sorted(SEARCHED))
def test_the_bots_play_as_they_always_did(name: str) -> None:
    kept = json.loads(KEPT.read_text(encoding="utf-8"))
    assert play(name) == kept[name]


def test_the_kept_games_are_real_play() -> None:
    """The kept games are not empty or all alike: a test of nothing would pass on anything."""
    kept = json.loads(KEPT.read_text(encoding="utf-8"))
    for name, games in kept.items():
        for played in games["search"] + games["greedy"]:
            assert played, name
        assert len({tuple(g) for g in games["search"]}) == len(games["search"]), name


if __name__ == "__main__":
    KEPT.write_text(json.dumps({name: play(name) for name in SEARCHED}, indent=1) + "\n")
