"""A tournament that grows: a late player added, or more games per pairing, without losing what
was played.

When a config differs from the stored tournament only in its players (all the old ones kept) or
in a larger `games_per_pairing`, every stored game is matched with a game of the new schedule
between the same two players (same colours where the new schedule has them), and the new
schedule's other games are added after the stored ones, keeping their colours, rounds and seeds.
Any other change still changes the schedule, and is refused, and so does any change to a staged
format (`formats/`), whose later stages follow from the first.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from referee.tournament.schedule import ScheduledGame
from referee.tournament.store import GameRow

GROWABLE = frozenset({"players", "games_per_pairing"})


def added_games(
    stored_key: Mapping[str, Any],
    wanted_key: Mapping[str, Any],
    stored: Sequence[GameRow],
    schedule: Sequence[ScheduledGame],
) -> list[ScheduledGame] | None:
    """The games to add, numbered after the stored ones, if the config only grows the
    tournament; None if it changes it in any other way."""
    changed = {key for key in wanted_key if stored_key.get(key) != wanted_key[key]}
    if not changed or not changed <= GROWABLE:
        return None
    if wanted_key.get("format") not in ("round-robin", "gauntlet"):
        return None  # a staged format's later stages follow from its first: it cannot grow
    if not set(stored_key["players"]) <= set(wanted_key["players"]):
        return None  # a player left: its games cannot be kept
    if wanted_key["games_per_pairing"] < stored_key["games_per_pairing"]:
        return None
    unmatched = _match(stored, schedule)
    if unmatched is None:
        return None
    first = max((row.number for row in stored), default=0) + 1
    return [replace(game, number=first + i) for i, game in enumerate(unmatched)]


def _match(
    stored: Sequence[GameRow], schedule: Sequence[ScheduledGame]
) -> list[ScheduledGame] | None:
    """The scheduled games no stored game stands for (None if a stored game has no match)."""
    by_pair: dict[tuple[str, str], list[ScheduledGame]] = defaultdict(list)
    for game in schedule:
        by_pair[(game.blue, game.orange)].append(game)
    taken: set[int] = set()
    for row in stored:
        for pair in ((row.blue, row.orange), (row.orange, row.blue)):
            if by_pair[pair]:
                taken.add(by_pair[pair].pop(0).number)
                break
        else:
            return None
    return [game for game in schedule if game.number not in taken]
