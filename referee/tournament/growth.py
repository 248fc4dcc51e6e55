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

from referee.tournament.config import changed_keys
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
    changed = set(changed_keys(stored_key, wanted_key))
    if not changed or not changed <= GROWABLE:
        return None
    if wanted_key.get("format") not in ("round-robin", "gauntlet"):
        return None  # a staged format's later stages follow from its first: it cannot grow
    if not set(stored_key["players"]) <= set(wanted_key["players"]):
        return None  # a player left: its games cannot be kept
    if wanted_key["games_per_pairing"] < stored_key["games_per_pairing"]:
        return None
    matched = match_schedule([(row.blue, row.orange) for row in stored], schedule)
    if matched is None:
        return None
    first = max((row.number for row in stored), default=0) + 1
    return [replace(game, number=first + i) for i, game in enumerate(matched[1])]


def match_schedule(
    played: Sequence[tuple[str, str]], schedule: Sequence[ScheduledGame]
) -> tuple[list[ScheduledGame], list[ScheduledGame]] | None:
    """The scheduled game each played (blue, orange) pair stands for (same colours where the
    schedule has them), and the scheduled games none stands for; None if a pair has no match."""
    by_pair: dict[tuple[str, str], list[ScheduledGame]] = defaultdict(list)
    for game in schedule:
        by_pair[(game.blue, game.orange)].append(game)
    matched: list[ScheduledGame] = []
    for blue, orange in played:
        for pair in ((blue, orange), (orange, blue)):
            if by_pair[pair]:
                matched.append(by_pair[pair].pop(0))
                break
        else:
            return None
    taken = {game.number for game in matched}
    return matched, [game for game in schedule if game.number not in taken]
