"""A small real tournament in which one bot writes out of turn in every game it plays."""

from __future__ import annotations

import sys
from pathlib import Path

from protocols import get_game
from tests.commandline import referee
from tests.scriptbots import script_bot

SLOW_BOT = Path(__file__).resolve().parents[1] / "web" / "slow_bot.py"
GAMES = 4  # games_per_pairing: the chatty bot loses all of them by out-of-turn


def first_move(game_name: str) -> str:
    game = get_game(game_name)
    state = game.initial_state(game.parse_options({}))
    return game.format_move(next(iter(game.legal_moves(state))))


def chatty_body(move: str) -> str:
    """Blue: a legal move, then a line nobody asked for. Orange: a line before blue has moved
    (its opponent waits a second before each move, so the line is always out of turn)."""
    return f"""
        colour = hear()
        if colour == "blue":
            sys.stdout.write("{move}\\n{move}\\n")
            sys.stdout.flush()
        else:
            say("{move}")
        time.sleep(30)
    """


def play_chatty_tournament(folder: Path) -> Path:
    """Play `cup.toml` in `folder` (chatty against a slow, correct bot); its directory."""
    chatty = script_bot(folder, "chatty", chatty_body(first_move("alak")))
    steady = f"{sys.executable} {SLOW_BOT} alak 7 1.0"
    (folder / "cup.toml").write_text(
        f'name = "cup"\ngame = "alak"\nseed = 3\ngames_per_pairing = {GAMES}\nconcurrency = 2\n'
        "[match]\nexit_grace = 0.2\n"
        f'[[players]]\nname = "chatty"\ncommand = "{chatty}"\n'
        f'[[players]]\nname = "steady"\ncommand = "{steady}"\n'
        "trusted = true\n"  # it names a bot of the tests, outside this folder
    )
    done = referee("tournament", "run", "cup.toml", "-q", "--events", cwd=folder)
    assert done.returncode == 0, done.stderr
    (folder / "events.jsonl").write_text(done.stdout)
    return folder / "cup"
