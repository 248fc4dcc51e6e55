"""Pairings and colours: the list of games a tournament plays, deterministic for a seed (a
round robin's or a gauntlet's whole schedule here; the staged formats in `formats/` pair each
stage from these pieces as the one before it finishes).

Colours are part of the schedule, never drawn when a game starts, so every result is credited to
the right player and a resumed tournament plays exactly the games an uninterrupted one would.

Round robin uses the circle method: rounds in which nobody plays twice, every pair meeting once
per cycle. In the first cycle each player has blue in half its games (within one); each further
cycle swaps the previous one's colours, so an even number of games per pairing gives every pair
exactly equal colours. A gauntlet pairs each challenger with every other player (challengers
never meet each other), with the same colour rules.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from referee.tournament.config import TournamentConfig


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of the schedule; `number` (from 1) names its record file."""

    number: int
    round: int
    blue: str
    orange: str
    seed: int
    # The moves it starts from (`[openings]`), chosen when it is played: the same for both games
    # of a pair (the two players, colours swapped); empty: the start position.
    opening: tuple[str, ...] = ()

    @property
    def players(self) -> tuple[str, str]:
        return (self.blue, self.orange)


Pairing = tuple[str, str]  # (blue in the first cycle, orange in the first cycle)


def table_schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """A round robin's or a gauntlet's games, in the order they are meant to be played (a
    staged format's come from `formats/`: `make_schedule`)."""
    if config.format == "gauntlet":
        rounds = gauntlet_rounds(config.challengers, config.player_names)
    else:
        order = list(config.player_names)
        random.Random(f"order/{config.seed}").shuffle(order)
        rounds = round_robin_rounds(order)
    return expand(rounds, config.games_per_pairing, config.seed)


def round_robin_rounds(players: list[str]) -> list[list[Pairing]]:
    """Circle method: len(players) - 1 rounds (one more, with byes, for an odd count)."""
    slots: list[int | None] = [*range(len(players))]
    if len(slots) % 2:
        slots.append(None)  # the bye
    n = len(slots)
    rounds: list[list[Pairing]] = []
    for r in range(n - 1):
        # Slot 0 stays put; the others rotate one place per round.
        rotated = [slots[0], *(slots[1 + (i + r) % (n - 1)] for i in range(n - 1))]
        pairs: list[Pairing] = []
        for i in range(n // 2):
            a, b = rotated[i], rotated[n - 1 - i]
            if a is not None and b is not None:
                pairs.append(_coloured(players, min(a, b), max(a, b)))
        rounds.append(pairs)
    return rounds


def _coloured(players: list[str], low: int, high: int) -> Pairing:
    # The lower index is blue when the indices' sum is odd: every player then has blue in
    # half its games (within one when it plays an odd number).
    if (low + high) % 2:
        return (players[low], players[high])
    return (players[high], players[low])


def gauntlet_rounds(challengers: list[str], players: list[str]) -> list[list[Pairing]]:
    """Every challenger against every non-challenger, rotating so rounds rarely overlap."""
    others = [p for p in players if p not in challengers]
    rounds: list[list[Pairing]] = []
    for r in range(len(others)):
        pairs: list[Pairing] = []
        for k, challenger in enumerate(challengers):
            j = (k + r) % len(others)
            # Alternating on j + k balances colours both for challengers and for opponents.
            blue_first = (j + k) % 2 == 0
            pairs.append((challenger, others[j]) if blue_first else (others[j], challenger))
        rounds.append(pairs)
    return rounds


def expand(rounds: list[list[Pairing]], games_per_pairing: int, seed: int) -> list[ScheduledGame]:
    """Repeat the rounds once per game of a pairing, swapping colours on every other cycle."""
    games: list[ScheduledGame] = []
    for cycle in range(games_per_pairing):
        for r, pairs in enumerate(rounds):
            for blue, orange in pairs:
                if cycle % 2:
                    blue, orange = orange, blue
                number = len(games) + 1
                games.append(
                    ScheduledGame(
                        number=number,
                        round=cycle * len(rounds) + r + 1,
                        blue=blue,
                        orange=orange,
                        seed=game_seed(seed, number),
                    )
                )
    return games


def game_seed(tournament_seed: int, number: int) -> int:
    """A game's own seed: fixed by the tournament seed and the game number."""
    return random.Random(f"game/{tournament_seed}/{number}").randrange(2**31)
