"""Searches for Lielow's two puzzles: the longest game both players prolong, and a position where
the player to move has 64 distinct legal moves.

Both are beam searches over the real rules (`protocols.lielow.rules`): every layer holds up to
`width` positions after the same number of plies, each reached from the start by legal moves that
remove no king; the next layer is every such position's children, duplicates merged, the best
`width` kept by a score, ties broken by a seeded random key (so one seed and one width give one
game).

The longest game. Every move that lands on an empty square raises its stack by exactly 1, and a
stack can grow from 1 to at most 8 (less from some squares: see GROWTH); a capture starts the
capturer again at 1 and removes the victim; a move off the board removes the mover. So a game's
plies are bounded by what its stacks can still grow, plus what further captures can add:

    bound = ply + sum over stacks (growth left) + 7 * (stacks on the board - 1)

No move raises it (a plain move uses one growth step; a capture or a move off the board gives
back at most the 7 it takes), and it is 217 at the start; docs/analysis/lielow.md tightens that
to 211 for the whole game. The beam ranks positions by `Budget.score`, which follows the same
counts per side, since the sides alternate. Once few stacks are left, `polish` searches the rest
of the game exactly.

The broad position. A stack has at most 8 distinct moves (eight on-board landings, or fewer plus
one off-board move), and a side at most 8 stacks, so 64 moves needs all eight of a side's stacks,
each with eight on-board landings none of which is an own stack. The beam keeps the positions
where one side's moves come closest to that.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from protocols.base import Side
from protocols.lielow.rules import _LANDINGS, GAME, MAX_HEIGHT, OFF, SIZE, LielowState, Move

BROAD_MOVES = 64  # the puzzle's number of moves


@dataclass(frozen=True)
class Found:
    """A game found by a search: its canonical move lines and what the search did."""

    moves: list[str]
    layers: int  # plies the beam went through
    positions: int  # positions generated (children examined)
    complete: bool  # the search ran to its end (not stopped by the deadline or Ctrl-C)
    mark: int | None = None  # the ply after which the broad position stands (broad search)
    interrupted: bool = False  # stopped by Ctrl-C


# A progress report: (layer, best so far as plies or moves, the beam's best score, positions
# generated); the score is the length bound (longest) or the most moves of a side (broad).
Progress = Callable[[int, int, int, int], None]


def _reach(height: int, square: int, table: dict[tuple[int, int], int]) -> int:
    """The tallest a stack of `height` on `square` can grow by moving onto empty squares."""
    if height == MAX_HEIGHT:
        return height
    landings = _LANDINGS[square * 9 + height]
    return max((table[target, height + 1] for target in landings), default=height)


def _growth_table() -> list[int]:
    """Per square * 9 + height: how much a stack there can still grow (on an empty board)."""
    reach: dict[tuple[int, int], int] = {}
    for height in range(MAX_HEIGHT, 0, -1):
        for square in range(SIZE * SIZE):
            reach[square, height] = _reach(height, square, reach)
    growth = [0] * (SIZE * SIZE * 9)
    for (square, height), tallest in reach.items():
        growth[square * 9 + height] = tallest - height
    return growth


# A height-5 stack on d4 can only leave the board; a height-7 one grows only on an edge: the
# growth a stack can still make depends on where it stands, not only on its height.
GROWTH = _growth_table()


@dataclass(frozen=True, slots=True)
class Budget:
    """What each side can still do: the growth left in its stacks, how many of its stacks can
    still land on the board, and how many stacks it has.

    `bound` is the module docstring's bound (every move uses one growth step, or removes a
    stack). `score` is what the beam ranks by: the sides alternate, so what the game can still
    last is about twice what the poorer side can still do; a side can do its growth, a capture
    (worth `capture`: 7 is the most it can give) of each enemy stack but the king if any of its
    stacks can still land on the board, and move all of its stacks but one off the board.
    """

    growth: tuple[int, int]  # blue's, orange's
    movers: tuple[int, int]  # stacks with a landing on the board (the others can only leave)
    stacks: tuple[int, int]

    @classmethod
    def of(cls, state: LielowState) -> Budget:
        growth, movers, stacks = [0, 0], [0, 0], [0, 0]
        for square, value in enumerate(state.board):
            if value:
                side = 0 if value > 0 else 1
                steps = GROWTH[square * 9 + abs(value)]
                growth[side] += steps
                movers[side] += steps > 0
                stacks[side] += 1
        return cls((growth[0], growth[1]), (movers[0], movers[1]), (stacks[0], stacks[1]))

    def after(self, state: LielowState, move: Move) -> Budget:
        """The budget after `state`'s mover plays `move` (a cheap update, no board scan)."""
        board = state.board
        src, dst = move
        me = 0 if state.to_move is Side.BLUE else 1
        growth, movers, stacks = list(self.growth), list(self.movers), list(self.stacks)
        height = abs(board[src])
        before = GROWTH[src * 9 + height]
        growth[me] -= before
        movers[me] -= before > 0
        if dst == OFF:
            stacks[me] -= 1
            return Budget((growth[0], growth[1]), (movers[0], movers[1]), (stacks[0], stacks[1]))
        if board[dst] == 0:
            steps = GROWTH[dst * 9 + height + 1]
        else:
            steps = GROWTH[dst * 9 + 1]
            lost = GROWTH[dst * 9 + abs(board[dst])]
            growth[1 - me] -= lost
            movers[1 - me] -= lost > 0
            stacks[1 - me] -= 1
        growth[me] += steps
        movers[me] += steps > 0
        return Budget((growth[0], growth[1]), (movers[0], movers[1]), (stacks[0], stacks[1]))

    def bound(self, ply: int) -> int:
        """The most plies a game through this position can have (the module docstring's)."""
        return ply + sum(self.growth) + 7 * (sum(self.stacks) - 1)

    def score(self, ply: int, to_move: Side, capture: int = 5) -> int:
        """The beam's estimate of how long a game through this position can last."""
        sides = []
        for me in (0, 1):
            captures = capture * (self.stacks[1 - me] - 1) if self.movers[me] else 0
            sides.append(self.growth[me] + captures + self.stacks[me] - 1)
        mover, other = sides if to_move is Side.BLUE else sides[::-1]
        return ply + 2 * min(mover, other) + (mover > other) + 1


def length_bound(state: LielowState) -> int:
    """The most plies any game through `state` can have (see the module docstring)."""
    return Budget.of(state).bound(state.ply)


def _key(state: LielowState) -> tuple[tuple[int, ...], Side, tuple[int, int]]:
    """What makes two positions the same for the rest of the game (the ply count aside)."""
    return state.board, state.to_move, state.kings


def _path(layers: list[list[tuple[int, Move]]], index: int) -> list[Move]:
    """The moves leading to entry `index` of the last layer, following the parent links."""
    moves: list[Move] = []
    for layer in reversed(layers):
        parent, move = layer[index]
        moves.append(move)
        index = parent
    moves.reverse()
    return moves


def longest_game(
    width: int,
    seed: int,
    deadline: Callable[[], bool] = lambda: False,
    progress: Progress | None = None,
    capture: int = 5,
) -> Found:
    """The longest complete game one beam of `width` finds: it ends when a king is removed.

    `deadline()` is asked between layers; when it says stop, the best game found so far is
    returned. A KeyboardInterrupt inside is turned into the same early return.
    """
    rng = random.Random(seed)
    start = GAME.initial_state()
    beam: list[tuple[LielowState, Budget, int]] = [(start, Budget.of(start), length_bound(start))]
    layers: list[list[tuple[int, Move]]] = []  # per layer: (parent index, move) of each entry
    best: tuple[int, list[Move]] = (0, [])
    generated = 0
    complete = True
    try:
        while beam:
            if deadline():
                complete = False
                break
            seen: set[tuple[tuple[int, ...], Side, tuple[int, int]]] = set()
            entries: list[tuple[int, float, LielowState, int, Move, Budget]] = []
            ending: tuple[int, Move] | None = None
            for index, (state, budget, _) in enumerate(beam):
                for move in GAME.legal_moves(state):
                    child = GAME.apply(state, move)
                    generated += 1
                    if child.lost is not None:  # a king removed: a complete game
                        if ending is None:
                            ending = (index, move)
                        continue
                    key = _key(child)
                    if key in seen:
                        continue
                    seen.add(key)
                    after = budget.after(state, move)
                    score = after.score(child.ply, child.to_move, capture)
                    # Ties go to the higher bound, then to the seeded random key.
                    tie = after.bound(child.ply) + rng.random()
                    entries.append((score, tie, child, index, move, after))
            if ending is not None and len(layers) + 1 > best[0]:
                # The first ending found in the deepest layer that has one: the beam is sorted,
                # so it comes from the most promising position.
                best = (len(layers) + 1, [*_path(layers, ending[0]), ending[1]])
            entries.sort(key=lambda entry: (-entry[0], -entry[1]))
            kept = entries[:width]
            layers.append([(entry[3], entry[4]) for entry in kept])
            beam = [(entry[2], entry[5], entry[0]) for entry in kept]
            if progress is not None:
                progress(len(layers), best[0], beam[0][2] if beam else 0, generated)
    except KeyboardInterrupt:
        return Found(
            [GAME.format_move(move) for move in best[1]],
            len(layers),
            generated,
            False,
            interrupted=True,
        )
    return Found([GAME.format_move(move) for move in best[1]], len(layers), generated, complete)


class TooBig(Exception):
    """The exact endgame search met more positions than it was allowed."""


class Endgame:
    """The exact longest continuations of positions with few stacks: a depth-first search with
    a table of every position it has solved, shared by all the positions asked about (a value
    depends on the position, not on how it was reached). Raises TooBig once the table holds
    `limit` positions; what it holds stays exact, so it can still answer smaller questions."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.memo: dict[tuple[tuple[int, ...], Side, tuple[int, int]], tuple[int, Move | None]]
        self.memo = {}

    def length(self, position: LielowState) -> int:
        """The most plies from `position` to a king removed (-1: no such way to go on)."""
        key = _key(position)
        known = self.memo.get(key)
        if known is not None:
            return known[0]
        if len(self.memo) >= self.limit:
            raise TooBig
        best, choice = -1, None
        for move in GAME.legal_moves(position):
            child = GAME.apply(position, move)
            if child.lost is not None:
                length = 1
            elif GAME.outcome(child) is not None:
                continue  # a game must end by a king lost
            else:
                rest = self.length(child)
                if rest < 0:
                    continue
                length = 1 + rest
            if length > best:
                best, choice = length, move
        self.memo[key] = (best, choice)
        return best

    def moves(self, state: LielowState) -> list[Move]:
        """The longest continuation of `state` (solved already by `length`)."""
        moves: list[Move] = []
        while True:
            entry = self.memo.get(_key(state))
            if entry is None or entry[1] is None:
                return moves
            moves.append(entry[1])
            state = GAME.apply(state, entry[1])


def longest_tail(state: LielowState, limit: int = 200_000) -> list[Move]:
    """The longest way to play `state` on until a king is removed, searched exactly.

    Worth it only with few stacks left: raises TooBig after `limit` distinct positions.
    """
    endgame = Endgame(limit)
    return endgame.moves(state) if endgame.length(state) >= 0 else []


def polish(lines: list[str], stacks: int = 5, limit: int = 200_000) -> list[str]:
    """`lines` with its ending replaced by the longest one, searched exactly from the first
    position with at most `stacks` stacks left (or unchanged when that search is too big)."""
    for ply, state in enumerate(replay_lines(lines)):
        if state.lost is None and sum(1 for value in state.board if value) <= stacks:
            try:
                tail = longest_tail(state, limit)
            except TooBig:
                return lines
            if ply + len(tail) > len(lines):
                return [*lines[:ply], *(GAME.format_move(move) for move in tail)]
            return lines
    return lines


def moves_of(state: LielowState, side: Side) -> int:
    """How many distinct legal moves `side` would have in `state` if it were to move."""
    if state.to_move is not side:
        state = replace(state, to_move=side)
    return len(GAME.legal_moves(state))


def broad_score(state: LielowState) -> int:
    """How close a position is to the puzzle: the larger of the two sides' move counts, and
    more for the side to move (its count is the one the puzzle asks for)."""
    mover = moves_of(state, state.to_move)
    other = moves_of(state, state.to_move.other)
    return 2 * max(mover, other) + (mover >= other)


def broad_game(
    width: int,
    seed: int,
    max_plies: int = 120,
    deadline: Callable[[], bool] = lambda: False,
    progress: Progress | None = None,
) -> Found:
    """A game from the start to a position where the player to move has 64 legal moves, then
    played on to its end (by the first move of each position that keeps the game going longest,
    see `finish`), so that the record is a complete game. `moves` is empty when none was found.
    """
    rng = random.Random(seed)
    start = GAME.initial_state()
    beam: list[LielowState] = [start]
    layers: list[list[tuple[int, Move]]] = []
    generated = 0
    best = 0
    complete = True
    try:
        while beam and len(layers) < max_plies:
            if deadline():
                complete = False
                break
            seen: set[tuple[tuple[int, ...], Side, tuple[int, int]]] = set()
            entries: list[tuple[int, float, LielowState, int, Move]] = []
            for index, state in enumerate(beam):
                for move in GAME.legal_moves(state):
                    child = GAME.apply(state, move)
                    generated += 1
                    key = _key(child)
                    if child.lost is not None or key in seen:
                        continue
                    seen.add(key)
                    entries.append((broad_score(child), rng.random(), child, index, move))
            entries.sort(key=lambda entry: (-entry[0], entry[1]))
            kept = entries[:width]
            layers.append([(entry[3], entry[4]) for entry in kept])
            beam = [entry[2] for entry in kept]
            for index, state in enumerate(beam):
                count = moves_of(state, state.to_move)
                best = max(best, count)
                if count >= BROAD_MOVES:
                    played = _path(layers, index)
                    tail = finish(state)
                    if progress is not None:
                        progress(len(layers), best, best, generated)
                    lines = [GAME.format_move(move) for move in [*played, *tail]]
                    return Found(lines, len(layers), generated, True, mark=len(played))
            if progress is not None:
                progress(len(layers), best, best, generated)
    except KeyboardInterrupt:
        return Found([], len(layers), generated, False, interrupted=True)
    return Found([], len(layers), generated, complete)


def finish(state: LielowState) -> list[Move]:
    """Moves that play `state` on until a king is removed: each side makes its first legal move
    that keeps the game going, and removes a king once nothing else is left (the game is finite,
    so this ends)."""
    moves: list[Move] = []
    while GAME.outcome(state) is None:
        legal = GAME.legal_moves(state)
        going = [move for move in legal if GAME.apply(state, move).lost is None]
        move = (going or list(legal))[0]
        moves.append(move)
        state = GAME.apply(state, move)
    return moves


def replay_lines(lines: list[str]) -> Iterator[LielowState]:
    """The positions of a game given by its move lines, the start included (rules checked)."""
    state = GAME.initial_state()
    yield state
    for line in lines:
        state = GAME.apply(state, GAME.parse_move(state, line))
        yield state
