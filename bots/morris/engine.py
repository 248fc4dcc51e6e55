"""Iterative deepening with aspiration windows around a search core (C or Python).

Each iteration searches the root moves one ply deeper, the best move of the last one first.
From `ASPIRATION_FROM` on, an iteration starts with a narrow window around the last score and
widens it (fourfold each time) on the side where the score fell outside. Depth 1 always
finishes; no iteration starts after the clock's soft limit; an iteration cut short by the hard
limit leaves the last finished one's move, or a move it had already proven better. A proven
win or loss ends the deepening. The seed shuffles the root moves once (ties go different ways
from game to game); with a fixed depth and a clock that does not run out, the same position
and seed give the same move with either core.
"""

from __future__ import annotations

import random
import time
from typing import Protocol

from bots.clock import MoveClock
from bots.morris.board import Position, from_state, generate, to_rules_move
from bots.morris.pysearch import INFINITY, WIN_BOUND, RootResult
from bots.search.engine import SearchResult
from protocols.lasker_morris.rules import LaskerMorrisState

MAX_DEPTH = 64
ASPIRATION_FROM = 4
ASPIRATION = 30  # the first half-width of the window, in hundredths of a stone


class Core(Protocol):
    """What the deepening needs of a search core (`PythonCore`, `NativeCore`)."""

    def set_root(self, pos: Position, history: list[int]) -> None: ...

    def search_root(
        self, moves: list[int], depth: int, alpha: int, beta: int, seconds: float
    ) -> RootResult: ...

    def clear(self) -> None: ...

    def age(self) -> None: ...


class MorrisSearch:
    """Chooses moves with one core, whose tables persist from move to move."""

    def __init__(self, core: Core, seed: int | None) -> None:
        self.core = core
        self.rng = random.Random(seed)

    def choose(
        self, state: LaskerMorrisState, clock: MoveClock, max_depth: int | None = None
    ) -> SearchResult:
        started = time.monotonic()
        pos, history = from_state(state)
        moves = self._root_order(pos)
        best, score, depth, nodes, stopped = moves[0], 0, 0, 0, False
        if len(moves) > 1:
            self.core.set_root(pos, history)
            best, score, depth, nodes, stopped = self._deepen(moves, clock, max_depth or MAX_DEPTH)
        move = to_rules_move(best, state.to_move)
        return SearchResult(move, score, depth, nodes, time.monotonic() - started, stopped)

    def housekeeping(self) -> None:
        self.core.age()

    def _root_order(self, pos: Position) -> list[int]:
        """Mill moves first; the seed shuffles each group."""
        moves = generate(pos)
        loud = [m for m in moves if m >> 10 != 24]
        quiet = [m for m in moves if m >> 10 == 24]
        self.rng.shuffle(loud)
        self.rng.shuffle(quiet)
        return loud + quiet

    def _deepen(
        self, moves: list[int], clock: MoveClock, max_depth: int
    ) -> tuple[int, int, int, int, bool]:
        best, score, finished, nodes = moves[0], 0, 0, 0
        for depth in range(1, max_depth + 1):
            if depth > 1 and time.monotonic() >= clock.soft:
                break
            seconds = float("inf") if depth == 1 else clock.hard - time.monotonic()
            result, spent = self._iteration(moves, depth, score, seconds)
            nodes += spent
            if result.aborted:
                if result.proven >= 0:
                    best, score = moves[result.proven], result.score
                return best, score, finished, nodes, True
            best, score, finished = moves[result.best], result.score, depth
            moves.remove(best)
            moves.insert(0, best)
            if abs(score) > WIN_BOUND:
                break
        return best, score, finished, nodes, False

    def _iteration(
        self, moves: list[int], depth: int, last: int, seconds: float
    ) -> tuple[RootResult, int]:
        """One depth, re-searched with wider windows until the score falls inside."""
        deadline = time.monotonic() + seconds
        width = ASPIRATION
        narrow = depth >= ASPIRATION_FROM and abs(last) < WIN_BOUND
        alpha, beta = (last - width, last + width) if narrow else (-INFINITY, INFINITY)
        nodes = 0
        while True:
            result = self.core.search_root(
                moves, depth, alpha, beta, max(0.0, deadline - time.monotonic())
            )
            nodes += result.nodes
            if result.aborted:
                return result, nodes
            if result.score <= alpha and alpha > -INFINITY:
                width *= 4
                alpha = max(-INFINITY, last - width)
            elif result.score >= beta and beta < INFINITY:
                width *= 4
                beta = min(INFINITY, last + width)
            else:
                return result, nodes
