"""Perfect play from solved tables: the L game always, Alak on boards small enough to solve.

The L game table (`bots.solvers.l_game`) is built at start-up in a fraction of a second. The
bot wins every won position by the fastest route, keeps every drawn one drawn and, when lost,
holds out as long as possible. Among equally good moves it prefers the one that leaves the
opponent the most replies that would throw the result away (a drawing move after which many
replies lose is a trap for a weaker player), then the seed decides.

Alak is solved at start-up for the board size in the options (`bots.solvers.alak`: about
0.5 s for 10 points, a few seconds and 100 MB for 11); the same preferences apply.
"""

from __future__ import annotations

import random
import time
from typing import Any

from bots.clock import MoveClock
from bots.config import MAX_PERFECT_ALAK, BotConfig
from bots.player import Chooser
from bots.solvers.alak import Solution, children, state_key
from bots.solvers.alak import Value as AlakValue
from bots.solvers.alak import solve as solve_alak
from bots.solvers.l_game import Table, Value, arrangement, best_moves, index, solve
from protocols.alak import AlakState, rules_for
from protocols.alak import Move as AlakMove
from protocols.base import Game
from protocols.l_game import FULL, MASKS, LGameState, Move, fitting, squares_of


def _neutral_moves(neutrals: int, occupied: int) -> list[int]:
    """The neutral masks a player may leave: unchanged, or one neutral moved to an empty square."""
    empty = squares_of(FULL & ~(occupied | neutrals))
    return [neutrals] + [
        neutrals ^ (1 << src) | (1 << dst) for src in squares_of(neutrals) for dst in empty
    ]


class LGamePerfect:
    """Perfect L game play with a trap-setting tie-break."""

    def __init__(self, seed: int | None) -> None:
        self.table: Table = solve()
        self.rng = random.Random(seed)
        self._traps: dict[tuple[int, int, int, int], float] = {}  # (arrangement, hope) -> share

    def choose(self, state: LGameState, clock: MoveClock) -> Move:
        moves = best_moves(state, self.table)
        value, _ = self.table.of_state(state)
        self.rng.shuffle(moves)
        if value == Value.WIN or len(moves) == 1:
            return moves[0]
        # A draw hopes for a win, a loss for anything better.
        hoped = {Value.WIN} if value == Value.DRAW else {Value.WIN, Value.DRAW}
        best, best_share = moves[0], -1.0
        for move in moves:
            if time.monotonic() >= clock.soft:
                break
            after = _after(state, move)
            share = self._trap_share(after, hoped)
            if share > best_share:
                best, best_share = move, share
        return best

    def _trap_share(self, after: tuple[int, int, int], hoped: set[Value]) -> float:
        """The share of the opponent's replies after which we get a `hoped` value."""
        key = (*after, len(hoped))
        found = self._traps.get(key)
        if found is None:
            found = self._traps[key] = self._count_share(*after, hoped)
        return found

    def _count_share(self, his: int, ours: int, neutrals: int, hoped: set[Value]) -> float:
        values = self.table.values
        good = total = 0
        for placement in fitting(MASKS[ours] | neutrals):
            if placement == his:
                continue
            for after in _neutral_moves(neutrals, MASKS[ours] | MASKS[placement]):
                total += 1
                good += values[index(ours, placement, after)] in hoped
        return good / total if total else 1.0


def _after(state: LGameState, move: Move) -> tuple[int, int, int]:
    """The arrangement (opponent's L, our L, neutrals) after `move`, opponent to move."""
    _, opponent, neutrals = arrangement(state)
    if move.src >= 0:
        neutrals = neutrals & ~(1 << move.src) | (1 << move.dst)
    return opponent, move.placement, neutrals


class AlakPerfect:
    """Perfect Alak play from the solved table of one board size."""

    def __init__(self, size: int, seed: int | None) -> None:
        self.solution: Solution = solve_alak(size)
        self.rules = rules_for(size, 0, 0)
        self.rng = random.Random(seed)

    def choose(self, state: AlakState, clock: MoveClock) -> AlakMove:
        ranked: list[tuple[tuple[int, int], int]] = []
        for point, child in children(self.rules, state_key(state)):
            value, plies = self.solution.lookup(child)
            # The child's value is the opponent's: his loss is our win (win fast, lose slowly).
            rank = {
                AlakValue.LOSS: (0, plies),
                AlakValue.DRAW: (1, 0),
                AlakValue.WIN: (2, -plies),
            }[value]
            ranked.append((rank, point))
        best = min(rank for rank, _ in ranked)
        return AlakMove(self.rng.choice([point for rank, point in ranked if rank == best]))


def perfect_chooser(game: Game[Any, Any, Any], config: BotConfig) -> Chooser:
    """The perfect player of the L game or of Alak (any size: large boards take long to solve)."""
    if game.name == "l-game":
        return LGamePerfect(config.seed).choose
    if game.name == "alak":
        size = config.options.size
        if size > MAX_PERFECT_ALAK:
            raise ValueError(
                f"the perfect bot solves Alak boards of up to {MAX_PERFECT_ALAK} points, not "
                f"{size}: larger ones take too long at start-up (use the search bot)"
            )
        return AlakPerfect(size, config.seed).choose
    raise ValueError(f"the perfect bot plays only the L game and Alak, not {game.name}")
