"""The engine's search core in Python: the fallback where the C core cannot be built.

`core.c` is this module line for line (the tests play both on a fixed set of positions and
compare the scores, the moves and the node counts), so a change here is a change there.

One call searches the root moves at one depth within a window (`search_root`); the iterative
deepening and the aspiration windows around it are `bots.morris.engine`'s, shared by both cores.
Inside: negamax with alpha-beta, a principal variation search (null windows after the first
move), late move reductions for quiet moves late in the order, a transposition table of
`2 ** table_bits` entries (always replaced) keyed by `board.zobrist`, and a quiescence search of
mill moves at the leaves (a pending mill is resolved before the position is judged).

Move order: the table's move; mill moves, the removal of a stone that makes a two of the
opponent's first; moves onto a point where the opponent would close a mill (blocks); two killer
moves per ply; the rest by their history score.

The draw rules are part of the search state: a position `limit` plies after the last removal is a
draw, and so is a position seen before (once within the search, or for the last time allowed in
the game's history), so the search sees the draw coming and steers to or away from it. With
`contempt`, a draw scores that much below nothing for the searching side (above for the other),
so the search avoids a draw it can avoid at that price.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bots.morris.board import (
    FLYING_MAX,
    FULL,
    MILL_RESTS,
    MIN_STONES,
    NEIGHBOURS,
    NO_REMOVAL,
    PARITY_KEY,
    Position,
    generate,
    has_move,
    play,
    repetition_key,
    zobrist,
)
from bots.morris.evaluation import WEIGHTS, closable, evaluate

MATE = 30_000  # a win now; a win in n plies scores MATE - n
TABLE_WIN = 20_000  # a win the endgame tables prove: TABLE_WIN - ply - distance
WIN_BOUND = 15_000  # scores beyond this are proven results, not evaluations
INFINITY = 32_000
MAX_PLY = 128
QUIESCENCE_PLIES = 8
CONTEMPT = 0  # what a draw costs the searching side, in hundredths of a stone
CHECK_EVERY = 1023  # nodes between clock checks (a mask)
EXACT, LOWER, UPPER = 0, 1, 2
REDUCE_FROM_DEPTH = 3
REDUCE_AFTER = 3  # moves searched in full before quiet ones are reduced
HASH_FIRST = 1 << 30
MILL_MOVE = 1 << 29
BLOCK = 1 << 28
KILLER = 1 << 27
HISTORY_CAP = 1 << 26

Probe = Callable[[Position], int]  # the endgame tables: 0 unknown or draw, else a signed score


class OutOfTime(Exception):
    """Raised inside the recursion when the hard time limit has passed."""


@dataclass(frozen=True, slots=True)
class RootResult:
    """One root search: the best score and move index, a move proven better than the first
    (-1: none), whether the clock stopped it, and the nodes searched."""

    score: int
    best: int
    proven: int
    aborted: bool
    nodes: int


def to_table(score: int, ply: int) -> int:
    """Proven results are stored relative to the node, not the root."""
    if score > WIN_BOUND:
        return score + ply
    if score < -WIN_BOUND:
        return score - ply
    return score


def from_table(score: int, ply: int) -> int:
    if score > WIN_BOUND:
        return score - ply
    if score < -WIN_BOUND:
        return score + ply
    return score


def removal_order(remove: int, opp: int, empty: int) -> int:
    """How much taking the stone on `remove` hurts: each two of the opponent it breaks, then
    its freedom to move."""
    value = (NEIGHBOURS[remove] & empty).bit_count()
    for rest in MILL_RESTS[remove]:
        if (opp & rest).bit_count() == 1 and (empty & rest).bit_count() == 1:
            value += 16
    return value


class PythonCore:
    """The search core: its table, killers and history persist from one search to the next."""

    def __init__(
        self,
        limit: int,
        repetition: int,
        table_bits: int = 18,
        weights: tuple[tuple[int, ...], ...] = WEIGHTS,
        probe: Probe | None = None,
        contempt: int = 0,
    ) -> None:
        self.limit, self.repetition, self.weights, self.probe = limit, repetition, weights, probe
        self.contempt = contempt
        self.mask = (1 << table_bits) - 1
        self.table: list[tuple[int, int, int, int, int] | None] = [None] * (self.mask + 1)
        self.history = [0] * (25 * 24)
        self.killers = [[0, 0] for _ in range(MAX_PLY + 1)]
        self.stack: list[int] = []
        self.root_index = 0
        self.nodes = 0
        self.deadline = float("inf")
        self.root: Position = (0, 0, 0, 0, 0)

    # -- between searches ------------------------------------------------------------------

    def set_root(self, pos: Position, history: list[int]) -> None:
        """The position to search and the repetition keys of the game before it (this one
        last; may be empty)."""
        self.root = pos
        self.stack = list(history) or [repetition_key(pos)]
        self.root_index = len(self.stack) - 1

    def clear(self) -> None:
        self.table = [None] * (self.mask + 1)

    def age(self) -> None:
        """Older successes count less."""
        self.history = [value // 4 for value in self.history]

    # -- the root --------------------------------------------------------------------------

    def search_root(
        self, moves: list[int], depth: int, alpha: int, beta: int, seconds: float
    ) -> RootResult:
        """Search `moves` of the root, in this order, to `depth` within (alpha, beta)."""
        self.nodes = 0
        self.deadline = time.monotonic() + seconds
        best_score, best, proven, low = -INFINITY, 0, -1, alpha
        try:
            for index, move in enumerate(moves):
                child = play(self.root, move)
                if index == 0:
                    score = -self.negamax(child, depth - 1, -beta, -low, 1)
                else:
                    score = -self.negamax(child, depth - 1, -low - 1, -low, 1)
                    if low < score < beta:
                        score = -self.negamax(child, depth - 1, -beta, -low, 1)
                if score > best_score:
                    best_score, best = score, index
                    if score > low:
                        low = score
                        if index:
                            proven = index
                        if low >= beta:
                            break
        except OutOfTime:
            return RootResult(best_score, best, proven, True, self.nodes)
        return RootResult(best_score, best, proven, False, self.nodes)

    # -- the tree --------------------------------------------------------------------------

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes & CHECK_EVERY and time.monotonic() >= self.deadline:
            raise OutOfTime

    def _repeated(self, key: int, counter: int) -> bool:
        """Whether the position (not yet on the stack) is a draw by repetition."""
        if not self.repetition:
            return False
        stack, seen = self.stack, 0
        last = len(stack) - 2
        for index in range(last, max(-1, len(stack) - 1 - counter), -2):
            if stack[index] == key:
                if index >= self.root_index:  # a repetition within the search
                    return True
                seen += 1
                if seen >= self.repetition - 1:
                    return True
        return False

    def _probe(self, pos: Position, ply: int) -> int:
        """The endgame tables' score of a decisive position (0: none, or a draw)."""
        if self.probe is None or pos[2] or pos[3]:
            return 0
        found = self.probe(pos)
        if found > 0:
            return TABLE_WIN - ply - found
        if found < 0:
            return -TABLE_WIN + ply - found
        return 0

    def negamax(self, pos: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        self._tick()
        own, _, own_hand, _, counter = pos
        # A draw is worth a little less than nothing to the searching side (contempt).
        draw = self.contempt if ply & 1 else -self.contempt
        if self.limit and counter >= self.limit:
            return draw
        if own.bit_count() + own_hand < MIN_STONES:
            return -(MATE - ply)
        key = repetition_key(pos)
        if self._repeated(key, counter):
            return draw
        proven = self._probe(pos, ply)
        if proven:
            return proven
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(pos, alpha, beta, ply, 0)
        hash_key = zobrist(pos, self.limit)
        if self.contempt and ply & 1:
            hash_key ^= PARITY_KEY
        entry = self.table[hash_key & self.mask]
        hash_move = 0
        if entry is not None and entry[0] == hash_key:
            _, stored, hash_move, stored_depth, flag = entry
            if stored_depth >= depth:
                stored = from_table(stored, ply)
                if (
                    flag == EXACT
                    or (flag == LOWER and stored >= beta)
                    or (flag == UPPER and stored <= alpha)
                ):
                    return stored
        moves = generate(pos)
        if not moves:
            return -(MATE - ply)
        order = self._order(pos, moves, hash_move, ply)
        self.stack.append(key)
        original_alpha, best, best_move = alpha, -INFINITY, 0
        for index, (rank, move) in enumerate(order):
            child = play(pos, move)
            if index == 0:
                score = -self.negamax(child, depth - 1, -beta, -alpha, ply + 1)
            else:
                if depth >= REDUCE_FROM_DEPTH and index >= REDUCE_AFTER and rank < KILLER:
                    score = -self.negamax(child, depth - 2, -alpha - 1, -alpha, ply + 1)
                    if score <= alpha:
                        continue
                score = -self.negamax(child, depth - 1, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta:
                    score = -self.negamax(child, depth - 1, -beta, -alpha, ply + 1)
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self._reward(move, depth, ply)
                        break
        self.stack.pop()
        flag = UPPER if best <= original_alpha else LOWER if best >= beta else EXACT
        self.table[hash_key & self.mask] = (hash_key, to_table(best, ply), best_move, depth, flag)
        return best

    def _quiesce(self, pos: Position, alpha: int, beta: int, ply: int, qply: int) -> int:
        """Mill moves only, after the side to move may stand on the static score."""
        if not has_move(pos):
            return -(MATE - ply)
        stand = evaluate(pos, self.limit, self.weights)
        if stand >= beta or qply >= QUIESCENCE_PLIES or ply >= MAX_PLY:
            return stand
        alpha = max(alpha, stand)
        moves = generate(pos, captures_only=True)
        best = stand
        for _, move in self._order(pos, moves, 0, ply):
            self._tick()
            child = play(pos, move)
            if child[0].bit_count() + child[2] < MIN_STONES:
                score = MATE - ply - 1
            else:
                found = self._probe(child, ply + 1)
                score = -found if found else -self._quiesce(child, -beta, -alpha, ply + 1, qply + 1)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def _order(
        self, pos: Position, moves: list[int], hash_move: int, ply: int
    ) -> list[tuple[int, int]]:
        """(rank, move) pairs, best first; equal ranks keep the generator's order."""
        own, opp, _, opp_hand, _ = pos
        empty = FULL & ~(own | opp)
        opp_free = bool(opp_hand) or opp.bit_count() + opp_hand <= FLYING_MAX
        threats = closable(opp, empty, opp_free)
        first, second = self.killers[ply]
        ranked = []
        for move in moves:
            source, target, remove = move & 31, move >> 5 & 31, move >> 10 & 31
            if move == hash_move:
                rank = HASH_FIRST
            elif remove != NO_REMOVAL:
                rank = MILL_MOVE + removal_order(remove, opp, empty)
            elif threats >> target & 1:
                rank = BLOCK + self.history[source * 24 + target]
            elif move == first:
                rank = KILLER + 1
            elif move == second:
                rank = KILLER
            else:
                rank = self.history[source * 24 + target]
            ranked.append((rank, move))
        ranked.sort(key=lambda pair: -pair[0])
        return ranked

    def _reward(self, move: int, depth: int, ply: int) -> None:
        """A quiet move that caused a cut-off becomes a killer and gains history."""
        if move >> 10 & 31 != NO_REMOVAL:
            return
        slot = (move & 31) * 24 + (move >> 5 & 31)
        self.history[slot] = min(self.history[slot] + depth * depth, HISTORY_CAP - 1)
        killers = self.killers[ply]
        if killers[0] != move:
            killers[1], killers[0] = killers[0], move
