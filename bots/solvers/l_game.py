"""A retrograde solver for the L game: the value and distance of every arrangement.

An arrangement is the position seen by the player to move: his L (`mover`, a placement index of
`protocols.l_game.rules`), the opponent's L and the two neutral squares (a bitmask). There are
18,368 of them. The solver ignores the repetition and ply-limit rules: endless play counts as a
draw.

`solve()` returns a `Table` (computed once, then cached) with, for each arrangement, `WIN`,
`LOSS` or `DRAW` for the player to move and the distance in plies: a loss in 0 means the mover
cannot move his L at all; a win in 1 means he can leave the opponent stuck; a win in n is the
fastest the mover can force, a loss in n the longest he can hold out. `best_moves(state)` turns
that into play: the fastest win, else a draw, else the slowest loss.

The solve walks backwards from the stuck arrangements, counting for each arrangement how many of
its moves are known to lead to a win for the opponent (the usual retrograde counting scheme).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from enum import IntEnum

from protocols.base import Side
from protocols.l_game.rules import (
    GAME,
    MASKS,
    PLACEMENTS,
    SIZE,
    SQUARES,
    LGameState,
    Move,
    fitting,
    squares_of,
)

PAIRS: tuple[int, ...] = tuple(
    (1 << a) | (1 << b) for a in range(SQUARES) for b in range(a + 1, SQUARES)
)
PAIR_INDEX: dict[int, int] = {mask: i for i, mask in enumerate(PAIRS)}
_PER_OPPONENT = len(PAIRS)  # 120 neutral pairs
_PER_MOVER = PLACEMENTS * _PER_OPPONENT
INDICES = PLACEMENTS * _PER_MOVER  # size of the (sparse) index space
# After a placement the mover leaves the neutrals alone or moves one of the two to one of the
# 16 - 4 - 4 - 2 = 6 empty squares: 13 moves per new L placement, all to distinct arrangements.
MOVES_PER_PLACEMENT = 1 + 2 * (SQUARES - 4 - 4 - 2)


class Value(IntEnum):
    """The game value of an arrangement for the player to move."""

    DRAW = 0
    WIN = 1
    LOSS = 2


def index(mover: int, opponent: int, neutrals: int) -> int:
    """The table index of an arrangement (neutrals as a bitmask of two squares)."""
    return mover * _PER_MOVER + opponent * _PER_OPPONENT + PAIR_INDEX[neutrals]


def unindex(i: int) -> tuple[int, int, int]:
    """The arrangement (mover, opponent, neutrals mask) of a table index."""
    mover, rest = divmod(i, _PER_MOVER)
    opponent, pair = divmod(rest, _PER_OPPONENT)
    return mover, opponent, PAIRS[pair]


def arrangement(state: LGameState) -> tuple[int, int, int]:
    """The arrangement of a game state, from the side of the player to move."""
    if state.to_move is Side.BLUE:
        return state.blue, state.orange, state.neutrals
    return state.orange, state.blue, state.neutrals


def arrangements() -> Iterator[tuple[int, int, int]]:
    """Every legal arrangement: two disjoint Ls and two neutrals on other squares."""
    for mover in range(PLACEMENTS):
        for opponent in fitting(MASKS[mover]):
            taken = MASKS[mover] | MASKS[opponent]
            for pair in PAIRS:
                if not pair & taken:
                    yield mover, opponent, pair


@dataclass(frozen=True, slots=True)
class Table:
    """Values and distances by arrangement index (see `index`); other indices are unused."""

    values: bytes
    distances: bytes

    def lookup(self, mover: int, opponent: int, neutrals: int) -> tuple[Value, int]:
        i = index(mover, opponent, neutrals)
        return Value(self.values[i]), self.distances[i]

    def of_state(self, state: LGameState) -> tuple[Value, int]:
        """The value and distance for the player to move in `state` (draw rules ignored)."""
        return self.lookup(*arrangement(state))


def _initial_counts(counts: list[int], values: bytearray, queue: list[int]) -> None:
    """Give each arrangement its number of moves; the ones with none are lost (queued)."""
    for opponent in range(PLACEMENTS):
        for pair_index, pair in enumerate(PAIRS):
            if pair & MASKS[opponent]:
                continue
            fits = fitting(MASKS[opponent] | pair)
            moves = MOVES_PER_PLACEMENT * (len(fits) - 1)
            base = opponent * _PER_OPPONENT + pair_index
            for mover in fits:
                i = mover * _PER_MOVER + base
                counts[i] = moves
                if not moves:
                    values[i] = Value.LOSS
                    queue.append(i)


def _neutrals_before(mover: int, opponent: int, neutrals: int) -> Iterator[int]:
    """Neutral squares a move may have started from to end in `neutrals` (the move's mover now
    is `opponent`): unchanged, or one neutral moved back to a square empty now."""
    yield neutrals
    empty = squares_of(~(MASKS[mover] | MASKS[opponent] | neutrals) & ((1 << SQUARES) - 1))
    for q in squares_of(neutrals):
        for p in empty:
            yield neutrals ^ (1 << q) ^ (1 << p)


@functools.cache
def solve() -> Table:
    """Solve every arrangement (cached: the first call takes a fraction of a second)."""
    counts = [0] * INDICES
    values = bytearray(INDICES)
    distances = bytearray(INDICES)
    queue: list[int] = []
    _initial_counts(counts, values, queue)
    loss = Value.LOSS
    # The queue grows while it is read; it stays in order of distance, so the first lost
    # successor found gives a win its shortest distance and the last won successor gives a loss
    # its longest.
    for i in queue:
        lost, step = values[i] == loss, distances[i] + 1
        mover, opponent, neutrals = unindex(i)
        # A predecessor is (x, mover, before): its player put his L from x onto `opponent`.
        for before in _neutrals_before(mover, opponent, neutrals):
            base = mover * _PER_OPPONENT + PAIR_INDEX[before]
            for x in fitting(MASKS[mover] | before):
                j = x * _PER_MOVER + base
                if x == opponent or values[j]:
                    continue
                if lost:
                    values[j], distances[j] = Value.WIN, step
                    queue.append(j)
                else:
                    counts[j] -= 1
                    if not counts[j]:
                        values[j], distances[j] = Value.LOSS, step
                        queue.append(j)
    return Table(bytes(values), bytes(distances))


def _square_maps() -> list[tuple[int, ...]]:
    """The 8 symmetries of the board as permutations of the squares (identity first)."""
    maps: list[tuple[int, ...]] = []
    last = SIZE - 1
    for swap in (False, True):
        for flip_x in (False, True):
            for flip_y in (False, True):
                perm = []
                for s in range(SQUARES):
                    x, y = s % SIZE, s // SIZE
                    if swap:
                        x, y = y, x
                    x, y = (last - x if flip_x else x), (last - y if flip_y else y)
                    perm.append(y * SIZE + x)
                maps.append(tuple(perm))
    return maps


def _map_mask(perm: tuple[int, ...], mask: int) -> int:
    return sum(1 << perm[s] for s in squares_of(mask))


def _placement_maps() -> list[tuple[int, ...]]:
    by_mask = {mask: p for p, mask in enumerate(MASKS)}
    return [tuple(by_mask[_map_mask(perm, mask)] for mask in MASKS) for perm in _square_maps()]


SQUARE_MAPS = _square_maps()
PLACEMENT_MAPS = _placement_maps()
PAIR_MAPS = [{pair: _map_mask(perm, pair) for pair in PAIRS} for perm in SQUARE_MAPS]
_SYMMETRIES = list(zip(PLACEMENT_MAPS, PAIR_MAPS, strict=True))


def symmetric_images(mover: int, opponent: int, neutrals: int) -> list[tuple[int, int, int]]:
    """The arrangement under each of the 8 symmetries of the board (itself first)."""
    return [(places[mover], places[opponent], pairs[neutrals]) for places, pairs in _SYMMETRIES]


def canonical(mover: int, opponent: int, neutrals: int) -> int:
    """The smallest index among the symmetric images: one name per class of arrangements."""
    return min(index(*image) for image in symmetric_images(mover, opponent, neutrals))


@dataclass(frozen=True, slots=True)
class Summary:
    """Counts of arrangements, and of classes up to rotation and reflection, by value."""

    arrangements: int
    classes: int
    stuck: int  # classes in which the mover cannot move his L (loss in 0)
    forced_losses: int  # other lost classes
    wins: int
    draws: int
    longest_win: int
    longest_loss: int


def summarize(table: Table) -> Summary:
    """Count the table by symmetry class (every member of a class has the same value)."""
    classes: dict[int, tuple[Value, int]] = {}
    total = 0
    for mover, opponent, neutrals in arrangements():
        total += 1
        value = table.lookup(mover, opponent, neutrals)
        classes.setdefault(canonical(mover, opponent, neutrals), value)
    found = list(classes.values())
    losses = [d for v, d in found if v == Value.LOSS]
    wins = [d for v, d in found if v == Value.WIN]
    return Summary(
        arrangements=total,
        classes=len(found),
        stuck=losses.count(0),
        forced_losses=len(losses) - losses.count(0),
        wins=len(wins),
        draws=sum(1 for v, _ in found if v == Value.DRAW),
        longest_win=max(wins, default=0),
        longest_loss=max(losses, default=0),
    )


def _rank(table: Table, after: LGameState) -> tuple[int, int]:
    """Sort key of a move by the position it leaves (smaller is better for the mover)."""
    value, distance = table.of_state(after)
    if value == Value.LOSS:  # the opponent loses: win fast
        return 0, distance
    if value == Value.DRAW:
        return 1, 0
    return 2, -distance  # the opponent wins: hold out long


def best_moves(state: LGameState, table: Table | None = None) -> list[Move]:
    """The legal moves of perfect play (fastest win, else a draw, else slowest loss), in the
    order of `legal_moves`; empty when the game is over."""
    table = table or solve()
    moves = GAME.legal_moves(state)
    ranks = [_rank(table, GAME.apply(state, move)) for move in moves]
    if not ranks:
        return []
    best = min(ranks)
    return [move for move, rank in zip(moves, ranks, strict=True) if rank == best]


def best_move(state: LGameState, table: Table | None = None) -> Move:
    """The first of `best_moves`; raises ValueError when the game is over."""
    moves = best_moves(state, table)
    if not moves:
        raise ValueError("the game is over: there is no move to choose")
    return moves[0]


__all__ = [
    "Summary",
    "Table",
    "Value",
    "arrangement",
    "arrangements",
    "best_move",
    "best_moves",
    "canonical",
    "index",
    "solve",
    "summarize",
    "symmetric_images",
    "unindex",
]
