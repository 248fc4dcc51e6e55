"""The referee names the built-in bots without importing `bots` (for `referee check`'s
opponents and a course's baselines), and the games each plays (a bot that cannot play the game
is a usage error before any game starts): its lists must be the bots' own."""

import pytest

from bots.__main__ import BOTS, config_from, factory, parse_args
from protocols import get_game
from protocols.registry import builtin_names
from referee.players import BUILTIN_BOTS, builtin_refusal, builtins_playing


def test_the_referee_knows_every_built_in_bot_by_name() -> None:
    assert set(BUILTIN_BOTS) == set(BOTS)
    assert len(BUILTIN_BOTS) == len(set(BUILTIN_BOTS))


@pytest.mark.parametrize("game", builtin_names())
@pytest.mark.parametrize("bot", sorted(BOTS))
def test_the_referee_knows_which_games_each_built_in_bot_plays(bot: str, game: str) -> None:
    """`builtin_refusal` refuses exactly the games whose bot refuses to start (before any game,
    as a usage error, rather than a crash in the game)."""
    refusal = builtin_refusal(f"builtin:{bot} --seed 1", game)
    played = get_game(game)
    # Alak on its smallest board: the perfect bot solves its table at once (11 points: seconds).
    options = played.parse_options({"size": 5}) if game == "alak" else None
    try:
        factory(bot)(played, config_from(parse_args([bot, "--game", game]), options))
    except ValueError:
        assert refusal is not None and refusal.startswith(f"builtin:{bot} plays only ")
        assert bot not in builtins_playing(game)
    else:
        assert refusal is None and bot in builtins_playing(game)


def test_an_unknown_built_in_bot_is_refused_by_name() -> None:
    assert builtin_refusal("builtin:perfectt", "alak") == (
        "builtin:perfectt is not a built-in bot (random, greedy, search, perfect, applet, "
        "lielow-reference)"
    )
    assert builtin_refusal("python3 perfect.py", "tic-tac-toe") is None
