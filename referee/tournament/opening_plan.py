"""Which opening each game of a tournament starts from (`[openings]`, the protocol's `position`
extension): both games of a pair (the same two players, the colours swapped) start from the same
one, pair after pair.

A pair is the k-th two games of a pairing in the order of the schedule (game numbers), so the
plan holds for a tournament resumed, grown or staged as for one played at once: a game's opening
follows from the games numbered before it. A random opening of `plies` moves is drawn from the
pair's own seed; a book's openings are taken at random (seeded by the pair) or one after the other
from the first on its line `start` (a line of the file, as its errors count them), the pairs in
the order of their first game.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from referee.openings import opening_for_pair
from referee.tournament.config import LoadedConfig


class Numbered(Protocol):
    """A game of the schedule or of the store: its number and its two players."""

    @property
    def number(self) -> int: ...

    @property
    def blue(self) -> str: ...

    @property
    def orange(self) -> str: ...


class OpeningPlan:
    """The openings of one tournament's games (none when it has no `[openings]`)."""

    def __init__(self, loaded: LoadedConfig) -> None:
        config = loaded.config
        self.settings = config.openings
        self.game, self.options, self.seed = config.game, config.game_options, config.seed
        self.book = loaded.book()
        # Sequential: the first pair takes the first opening on the book's line `start` or
        # after it (lines, as the book's errors count them).
        self.first = self.book.first_from_line(self.settings.start) if self.book else 0

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    def opening(self, number: int, games: Iterable[Numbered]) -> tuple[str, ...]:
        """The opening of game `number`, from the games of the schedule so far (all of them
        numbered up to it at least)."""
        if not self.enabled:
            return ()
        key, order = pairs(games)[number]
        book = self.book.openings if self.book is not None else None
        if book is not None and self.settings.order == "sequential":
            return tuple(book[(self.first + order) % len(book)])
        plies = self.settings.plies
        chosen = opening_for_pair(self.game, self.options, self.seed, key, plies=plies, book=book)
        return tuple(chosen)


def pairs(games: Iterable[Numbered]) -> dict[int, tuple[str, int]]:
    """Each game's pair (a key naming it, and its place among the pairs by first game)."""
    seen: dict[frozenset[str], int] = {}
    order: dict[str, int] = {}
    found: dict[int, tuple[str, int]] = {}
    for game in sorted(games, key=lambda g: g.number):
        players = frozenset((game.blue, game.orange))
        occurrence = seen.get(players, 0)
        seen[players] = occurrence + 1
        key = f"{'|'.join(sorted(players))}#{occurrence // 2}"
        order.setdefault(key, len(order))
        found[game.number] = (key, order[key])
    return found
