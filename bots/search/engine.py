"""Iterative-deepening negamax with alpha-beta, a transposition table and move ordering.

The engine is game-agnostic: a `Model` gives it moves, positions, endings, a static evaluation
and a hashable key per position (the table is a dict keyed by it: Python's hashing of an int or
tuple key does what Zobrist keys do in C). Moves are tried in this order: the table's best move,
then noisy moves (captures, mills) in the model's order, then the two killer moves of the ply,
then the other quiet moves by their history score. Every move after the first is searched with a
null window first (principal variation search); late quiet moves are first searched one ply
shallower (late move reductions) and searched again in full only if they look good.

Time: the search checks the clock every few hundred nodes and abandons the iteration when the
hard limit passes (an exception unwinds the recursion); it does not start an iteration after
the soft limit. The move of the last finished iteration is played, or a better one already
proven in the abandoned iteration. With a fixed depth and a clock that does not run out, the same
game and seed give the same moves (the seed only shuffles the root moves).
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from bots.clock import MoveClock
from protocols.search import Model

MATE = 1_000_000  # a win now; a win in n plies scores MATE - n
MATE_BOUND = MATE - 10_000  # scores beyond this are wins or losses, not evaluations
INFINITY = 10 * MATE
MAX_DEPTH = 64
EXACT, LOWER, UPPER = 0, 1, 2
CHECK_EVERY = 255  # nodes between clock checks (a mask: one less than a power of two)
DEFAULT_TABLE_LIMIT = 400_000  # entries; the table is cleared when it grows past this
REDUCE_FROM_DEPTH = 3  # late move reductions apply from this remaining depth
REDUCE_AFTER = 3  # ... to quiet moves after this many (hash move and killers come first)


class _OutOfTime(Exception):
    """Raised inside the recursion when the hard time limit has passed."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The chosen move (a rule-module move), its score and what it took to find it."""

    move: Any
    score: int
    depth: int  # the deepest finished iteration (0: only one legal move, or none finished)
    nodes: int
    seconds: float
    stopped: bool = False  # an iteration was abandoned when the time ran out

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def _to_table(score: int, ply: int) -> int:
    """Mate scores are stored relative to the node, not the root."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


class Search:
    """One searcher per game: keeps its table, killers and history from move to move."""

    def __init__(
        self,
        model: Model[Any, Any],
        seed: int | None,
        table_limit: int = DEFAULT_TABLE_LIMIT,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.model = model
        self.now = now  # the clock (a parameter so that tests can run out of time on cue)
        self.rng = random.Random(seed)
        self.table_limit = table_limit
        self.table: dict[Hashable, tuple[int, int, int, Any]] = {}
        self.history: defaultdict[Any, int] = defaultdict(int)
        self.killers: list[list[Any]] = [[None, None] for _ in range(MAX_DEPTH + 2)]
        self.nodes = 0
        self._hard = float("inf")
        self._proven: tuple[Any, int] | None = None  # a root move proven best so far

    # -- the root -------------------------------------------------------------------------

    def choose(self, state: Any, clock: MoveClock, max_depth: int | None = None) -> SearchResult:
        """The best move found for the player to move in `state` within `clock`."""
        started = self.now()
        self.nodes = 0
        model = self.model
        root = model.root(state)
        moves = self._root_order(root)
        best, score, finished, stopped = moves[0], 0, 0, False
        if len(moves) > 1:
            best, score, finished, stopped = self._deepen(
                root, moves, clock, max_depth or MAX_DEPTH
            )
        move = model.to_protocol(root, best)
        return SearchResult(move, score, finished, self.nodes, self.now() - started, stopped)

    def housekeeping(self) -> None:
        """Work between searches (best done off the clock): bound the table, age the history."""
        if len(self.table) > self.table_limit:
            self.table.clear()
        for move in self.history:  # older successes count less
            self.history[move] //= 4

    def _root_order(self, root: Any) -> list[Any]:
        """Noisy moves first; the seed shuffles each group (ties then go different ways)."""
        moves, noisy = self.model.moves(root)
        loud, quiet = list(moves[:noisy]), list(moves[noisy:])
        self.rng.shuffle(loud)
        self.rng.shuffle(quiet)
        return loud + quiet

    def _deepen(
        self, root: Any, moves: list[Any], clock: MoveClock, max_depth: int
    ) -> tuple[Any, int, int, bool]:
        best, score, finished = moves[0], 0, 0
        for depth in range(1, max_depth + 1):
            if depth > 1 and self.now() >= clock.soft:
                break
            # Depth 1 always finishes (it takes milliseconds): a move is never a blind guess.
            self._hard = clock.hard if depth > 1 else float("inf")
            self._proven = None
            try:
                score, best = self._search_root(root, moves, depth)
            except _OutOfTime:
                if self._proven is not None:  # a move proven better than the last best
                    best, score = self._proven
                return best, score, finished, True
            finished = depth
            moves.remove(best)
            moves.insert(0, best)
            if abs(score) > MATE_BOUND:  # a forced result: deeper search cannot change it
                break
        return best, score, finished, False

    def _search_root(self, root: Any, moves: list[Any], depth: int) -> tuple[int, Any]:
        model = self.model
        alpha, best = -INFINITY, moves[0]
        for index, move in enumerate(moves):
            child = model.play(root, move)
            if index == 0:
                score = -self._negamax(child, depth - 1, -INFINITY, INFINITY, 1)
            else:
                score = -self._negamax(child, depth - 1, -alpha - 1, -alpha, 1)
                if score > alpha:
                    score = -self._negamax(child, depth - 1, -INFINITY, -alpha, 1)
            if score > alpha:
                alpha, best = score, move
                self._proven = (move, score)
        return alpha, best

    # -- the tree -------------------------------------------------------------------------

    def _negamax(self, pos: Any, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if not self.nodes & CHECK_EVERY and self.now() >= self._hard:
            raise _OutOfTime
        model = self.model
        ended = model.end(pos)
        if ended is not None:
            return ended * (MATE - ply)
        if depth <= 0:
            return model.evaluate(pos)
        key = model.key(pos)
        entry = self.table.get(key)
        hash_move = None
        if entry is not None:
            stored_depth, flag, stored, hash_move = entry
            if stored_depth >= depth:
                stored = _from_table(stored, ply)
                if (
                    flag == EXACT
                    or (flag == LOWER and stored >= beta)
                    or (flag == UPPER and stored <= alpha)
                ):
                    return stored
        moves, noisy = model.moves(pos)
        if not moves:  # the model's end() should have caught this; score it as even
            return 0
        ordered = self._order(moves, noisy, hash_move, ply)
        original_alpha = alpha
        best, best_move = -INFINITY, ordered[0]
        # Late quiet moves (after the hash move, noisy moves and killers) are searched one ply
        # shallower first, and again at full depth only if they look better than the best so far.
        late = noisy + REDUCE_AFTER if depth >= REDUCE_FROM_DEPTH else len(ordered)
        for index, move in enumerate(ordered):
            child = model.play(pos, move)
            if index == 0:
                score = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1)
            else:
                if index >= late:
                    score = -self._negamax(child, depth - 2, -alpha - 1, -alpha, ply + 1)
                    if score <= alpha:
                        continue
                score = -self._negamax(child, depth - 1, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta:
                    score = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1)
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self._reward(move, moves, noisy, depth, ply)
                        break
        flag = UPPER if best <= original_alpha else LOWER if best >= beta else EXACT
        self.table[key] = (depth, flag, _to_table(best, ply), best_move)
        return best

    def _order(self, moves: Sequence[Any], noisy: int, hash_move: Any, ply: int) -> list[Any]:
        """Hash move, noisy moves, killers, then quiet moves by history."""
        quiet = list(moves[noisy:])
        if len(quiet) > 1:
            quiet.sort(key=self.history.__getitem__, reverse=True)
            for killer in self.killers[ply]:
                if killer is not None and killer in quiet:
                    quiet.remove(killer)
                    quiet.insert(0, killer)
        ordered = [*moves[:noisy], *quiet]
        if hash_move is not None and hash_move in ordered:
            ordered.remove(hash_move)
            ordered.insert(0, hash_move)
        return ordered

    def _reward(self, move: Any, moves: Sequence[Any], noisy: int, depth: int, ply: int) -> None:
        """A quiet move that caused a cut-off becomes a killer and gains history."""
        if move in moves[:noisy]:
            return
        self.history[move] += depth * depth
        killers = self.killers[ply]
        if killers[0] != move:
            killers[1], killers[0] = killers[0], move
