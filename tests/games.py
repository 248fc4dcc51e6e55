"""Play one game in a test as a run plays it: its `GameOrder`, on a host chosen for its
settings (a run chooses its host once; a test chooses one per game)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.match import driver
from referee.match.host import choose_host
from referee.match.order import GameOrder
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec
from referee.records import GameRecord


def order_of(
    game: str,
    player1: PlayerSpec,
    player2: PlayerSpec,
    *,
    options: dict[str, Any] | None = None,
    settings: MatchSettings | None = None,
    seed: int | None = None,
    opening: Sequence[str] = (),
) -> GameOrder:
    return GameOrder(
        game=game,
        options=options or {},
        players=(player1, player2),
        settings=settings or MatchSettings(),
        seed=seed,
        opening=tuple(opening),
    )


async def play_game(
    game: str,
    player1: PlayerSpec,
    player2: PlayerSpec,
    *,
    options: dict[str, Any] | None = None,
    settings: MatchSettings | None = None,
    seed: int | None = None,
    opening: Sequence[str] = (),
    **kw: Any,
) -> GameRecord:
    """`driver.play` of the order of these players (`kw`: its keyword arguments)."""
    order = order_of(
        game, player1, player2, options=options, settings=settings, seed=seed, opening=opening
    )
    return await driver.play(order, choose_host(order.settings.isolation), **kw)
