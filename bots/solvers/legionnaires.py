"""The position space of Legionnaires: how many positions are reachable from a start when either
player may move next, the measure of the small-board table in Boardman's paper.

A position is the pair of pawn sets (the side to move is not part of it); every position's
successors are all of blue's moves and all of orange's moves, and the start itself is counted.
"""

from __future__ import annotations

from collections.abc import Iterator

from protocols.legionnaires.options import LegionnairesOptions
from protocols.legionnaires.rules import GAME, Board, capture_map


def bits(mask: int) -> Iterator[int]:
    """The set bits of mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def reachable_positions(options: LegionnairesOptions | None = None) -> int:
    """How many positions are reachable from the start when either player may move next.

    This is the count in Boardman's table for small boards: a position is the pair of pawn sets
    (the side to move is not part of it), every position's successors are all of blue's moves and
    all of orange's moves, and the start position itself is counted.
    """
    start = GAME.initial_state(options)
    board = start.board
    shift = board.width * board.height
    # One int per position: blue's bitboard in the low bits, orange's above it.
    seen = {start.blue | start.orange << shift}
    stack = list(seen)
    while stack:
        for new in _successor_keys(board, stack.pop(), shift):
            if new not in seen:
                seen.add(new)
                stack.append(new)
    return len(seen)


def _successor_keys(board: Board, key: int, shift: int) -> list[int]:
    """The positions one move away, by either player, in reachable_positions' encoding."""
    blue, orange = key & ((1 << shift) - 1), key >> shift
    found = [
        ((blue ^ 1 << src) | 1 << dst) | (orange & ~(1 << dst)) << shift
        for src, targets in capture_map(board, blue, orange)
        for dst in bits(targets)
    ]
    found += [
        (blue & ~(1 << dst)) | ((orange ^ 1 << src) | 1 << dst) << shift
        for src, targets in capture_map(board, orange, blue)
        for dst in bits(targets)
    ]
    return found
