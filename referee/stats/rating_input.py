"""What the rating model reads: results counted by (first mover, second mover, kind, outcome).

Callers (tournaments, matches, the league, the arena) add rows by name; `cells()` turns them
into integer arrays, one row per distinct (first, second, kind) with its three counts, which is
all the likelihood needs: a fit then costs as much for a million games as for the cells they
fall in. Pure Python and numpy; nothing here knows where the games came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from referee.stats.rating_terms import DRAW, FIRST_WINS, SECOND_WINS, Floats, Ints

Outcome = Literal["first", "draw", "second"]  # who won: the first mover, nobody, the second mover
OUTCOME_COLUMN: dict[str, int] = {"first": FIRST_WINS, "draw": DRAW, "second": SECOND_WINS}
Mask = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Cells:
    """Counted results: one row per distinct (first, second, kind), with its first mover's wins,
    the draws and its second mover's wins in `counts` (shape (cells, 3))."""

    first: Ints
    second: Ints
    kind: Ints
    counts: Floats

    def __len__(self) -> int:
        return len(self.first)

    def where(self, keep: Mask) -> Cells:
        return Cells(self.first[keep], self.second[keep], self.kind[keep], self.counts[keep])

    def with_counts(self, counts: Floats) -> Cells:
        return Cells(self.first, self.second, self.kind, counts)


class RatingInput:
    """Results to rate, added by name. The same (first, second, kind, outcome) may be added any
    number of times; counts add up."""

    def __init__(self) -> None:
        self._players: dict[str, int] = {}
        self._kinds: dict[str, int] = {}
        # Rows as added (first, second, kind, outcome column, count), and bulk chunks of them:
        # counted per cell only when the cells are asked for.
        self._rows: list[tuple[int, int, int, int, int]] = []
        self._chunks: list[Ints] = []

    def add_player(self, name: str) -> int:
        """A player, with or without games (one without is reported `alone`); its index."""
        return self._players.setdefault(name, len(self._players))

    def add(self, first: str, second: str, kind: str, outcome: Outcome, count: int = 1) -> None:
        """`count` games of `kind` in which `first` moved first against `second`."""
        if first == second:
            raise ValueError(f"{first!r} cannot play itself")
        if outcome not in OUTCOME_COLUMN:
            raise ValueError(f"outcome {outcome!r} is not one of {sorted(OUTCOME_COLUMN)}")
        if count < 0:
            raise ValueError(f"a count of games cannot be negative ({count})")
        f, s, k = self.add_player(first), self.add_player(second), self._kind(kind)
        self._rows.append((f, s, k, OUTCOME_COLUMN[outcome], count))

    def add_indexed(
        self,
        players: Sequence[str],
        kinds: Sequence[str],
        table: Ints,
    ) -> None:
        """Many games at once: `table` has rows (first, second, kind, outcome column, count),
        the first three indexing `players` and `kinds`, the outcome FIRST_WINS, DRAW or
        SECOND_WINS (as `rating_terms` numbers them)."""
        table = np.asarray(table, dtype=np.int64).reshape(-1, 5)
        if len(table) and (
            (table[:, 0] == table[:, 1]).any()
            or (table[:, 4] < 0).any()
            or not np.isin(table[:, 3], [FIRST_WINS, DRAW, SECOND_WINS]).all()
        ):
            raise ValueError("a row plays a player against itself, or has a bad outcome or count")
        player_of = np.array([self.add_player(p) for p in players], dtype=np.int64)
        kind_of = np.array([self._kind(k) for k in kinds], dtype=np.int64)
        mapped = table.copy()
        mapped[:, 0], mapped[:, 1] = player_of[table[:, 0]], player_of[table[:, 1]]
        mapped[:, 2] = kind_of[table[:, 2]]
        self._chunks.append(mapped)

    def _kind(self, kind: str) -> int:
        return self._kinds.setdefault(kind, len(self._kinds))

    @property
    def players(self) -> list[str]:
        return list(self._players)

    @property
    def kinds(self) -> list[str]:
        return list(self._kinds)

    def cells(self) -> Cells:
        """Every game counted per (first, second, kind); cells without a game left out."""
        rows = np.array(self._rows, dtype=np.int64).reshape(-1, 5)
        table = np.concatenate([rows, *self._chunks])
        table = table[table[:, 4] > 0]
        n, k = max(1, len(self._players)), max(1, len(self._kinds))
        key = (table[:, 0] * n + table[:, 1]) * k + table[:, 2]
        keys, cell = np.unique(key, return_inverse=True)
        counts = np.bincount(cell * 3 + table[:, 3], table[:, 4], 3 * len(keys))
        pair = keys // k
        return Cells(pair // n, pair % n, keys % k, counts.reshape(-1, 3).astype(np.float64))
