"""The terminal boards, picture for picture: every game's board at positions of random games,
with colour and without, compared with the pictures kept in `pictures/<game>.txt` (the escape
codes a colour terminal receives, so every style counts, not only the characters).

After a deliberate change to a board's look, write the pictures again and read the difference:
`python -m tests.replay.test_board_pictures`.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from rich.console import Console

from protocols import get_game
from referee.replay import make_frame
from referee.views.boards import draw_board
from tests.replay.make_records import random_states

PICTURES = Path(__file__).with_name("pictures")
# (game, options, seed) of the random games whose positions are drawn.
GAMES = {
    "lasker-morris": [({}, 1), ({}, 2)],
    "lielow": [({}, 1), ({}, 2)],
    "legionnaires": [({}, 1), ({}, 2)],
    "l-game": [({}, 1), ({}, 2)],
    "alak": [({}, 1), ({"variant": "traditional", "size": 9}, 2)],
    "tic-tac-toe": [({}, 1), ({}, 2)],
}
SEPARATOR = "=" * 20


def ansi(text: object) -> str:
    """What a 256-colour terminal 120 columns wide receives for `text`."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="256", width=120, highlight=False)
    console.print(text)
    return out.getvalue()


def pictures(game_name: str) -> str:
    """Every picture of `game_name`, each under a heading that says which position it is."""
    game = get_game(game_name)
    drawn = []
    for options, seed in GAMES[game_name]:
        states, moves = random_states(game_name, seed, options=options)
        plies = sorted({1, len(moves) // 2, len(moves)})
        for ply in plies:
            before = states[ply - 1]
            frame = make_frame(game, game.parse_move(before, moves[ply - 1]), before, states[ply])
            for colour in (True, False):
                heading = f"{SEPARATOR} {options} seed {seed} ply {ply} colour {colour}"
                picture = draw_board(game_name, frame.state, frame.marks, colour)
                drawn.append(f"{heading}\n{ansi(picture)}")
    return "".join(drawn)


@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_the_boards_look_as_they_always_did(game_name: str) -> None:
    kept = (PICTURES / f"{game_name}.txt").read_text(encoding="utf-8")
    assert pictures(game_name) == kept


if __name__ == "__main__":
    for name in sys.argv[1:] or GAMES:
        (PICTURES / f"{name}.txt").write_text(pictures(name), encoding="utf-8")
