"""Write a Lielow game found by analysis as a game record `referee replay --verify-only` accepts.

A game found offline has no bots: the header names the search as both players (no command), and
the result is whatever the rules say of the final position (for these games: a king lost).
"""

from __future__ import annotations

from pathlib import Path

from protocols.base import Reason, Side
from protocols.lielow.options import LielowOptions
from protocols.lielow.rules import GAME
from referee.records import Header, PlayerInfo, Ply, Result, TimeControl, utc_now, write_lines


class UnfinishedGame(ValueError):
    """The moves given do not end the game by the rules, so they make no complete record."""


def write_game(path: Path, moves: list[str], title: str, seed: int | None) -> Result:
    """Replay `moves` through the rules and write them as a complete record at `path`.

    `title` names the search as the players do in a record of played games. Raises IllegalMove
    for a move the rules reject and UnfinishedGame when the moves do not end the game; nothing is
    written then.
    """
    options = LielowOptions()
    state = GAME.initial_state(options)
    plies: list[Ply] = []
    for number, line in enumerate(moves, start=1):
        move = GAME.parse_move(state, line)
        canonical = GAME.format_move(move)
        plies.append(Ply(ply=number, side=state.to_move, received=line, move=canonical, time_ms=0))
        state = GAME.apply(state, move)
    outcome = GAME.outcome(state)
    if outcome is None or outcome.reason is Reason.PLY_LIMIT:
        raise UnfinishedGame(f"the {len(moves)} moves do not end the game by the rules")
    player = PlayerInfo(name=f"analysis: {title}", command="referee analyse lielow")
    header = Header(
        game=GAME.name,
        options=options.model_dump(mode="json"),
        seed=seed,
        players={Side.BLUE: player, Side.ORANGE: player},
        time_control=TimeControl(),
        started_at=utc_now(),
    )
    result = Result.of_outcome(outcome, len(plies))
    write_lines(path, [header, *plies, result])
    return result
