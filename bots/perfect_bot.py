"""Perfect play from solved tables: the L game always, Alak on boards small enough to solve.

The L game table (`bots.solvers.l_game`) wins every won position by the fastest route, keeps
every drawn one drawn and, when lost, holds out as long as possible. Among equally good moves the
bot prefers the one that leaves the opponent the most replies that would throw the result away
(a drawing move after which many replies lose is a trap for a weaker player), then the seed
decides. Alak is played from the solved table of the board size in the options
(`bots.solvers.alak`); the same preferences apply.

Tables are read from the cache on disk (`bots.solvers.cache`) when a valid one is there, which
takes milliseconds. Otherwise they are solved at start-up (0.2 s for the L game; 0.5 s for Alak on
10 points, more than a second and 100 MB on 11) and written to the cache after the first move has
been sent, off the clock, if the cache can be written.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bots.clock import MoveClock
from bots.config import MAX_PERFECT_ALAK, BotConfig
from bots.player import Chooser
from bots.solvers import cache
from bots.solvers.alak import Solution, children, state_key
from bots.solvers.alak import solve as solve_alak
from bots.solvers.l_game import Table, Value, arrangement, best_moves, index, solve
from bots.solvers.retrograde import Value as AlakValue
from protocols.alak.rules import AlakState, rules_for
from protocols.alak.rules import Move as AlakMove
from protocols.base import Game
from protocols.l_game.rules import FULL, MASKS, LGameState, Move, fitting, squares_of


def _neutral_moves(neutrals: int, occupied: int) -> list[int]:
    """The neutral masks a player may leave: unchanged, or one neutral moved to an empty square."""
    empty = squares_of(FULL & ~(occupied | neutrals))
    return [neutrals] + [
        neutrals ^ (1 << src) | (1 << dst) for src in squares_of(neutrals) for dst in empty
    ]


class _SavesLater:
    """A chooser that may have a table to write to the cache once its first move is sent."""

    def __init__(self) -> None:
        self.pending_save: Callable[[], object] | None = None

    def after_move(self) -> None:
        """Called by the protocol loop after each move: the save runs off the clock, once."""
        save, self.pending_save = self.pending_save, None
        if save is not None:
            save()


class LGamePerfect(_SavesLater):
    """Perfect L game play with a trap-setting tie-break."""

    def __init__(self, seed: int | None, table: Table | None = None) -> None:
        super().__init__()
        self.table: Table = table if table is not None else solve()
        self.rng = random.Random(seed)
        self._traps: dict[tuple[int, int, int, int], float] = {}  # (arrangement, hope) -> share

    def __call__(self, state: LGameState, clock: MoveClock) -> Move:
        return self.choose(state, clock)

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


class AlakPerfect(_SavesLater):
    """Perfect Alak play from the solved table of one board size."""

    def __init__(self, size: int, seed: int | None, solution: Solution | None = None) -> None:
        super().__init__()
        self.solution: Solution = solution if solution is not None else solve_alak(size)
        self.rules = rules_for(size, 0, 0)
        self.rng = random.Random(seed)

    def __call__(self, state: AlakState, clock: MoveClock) -> AlakMove:
        return self.choose(state, clock)

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
    """The perfect player of the L game or of Alak, its table read from the cache if there."""
    dirs = cache.search_dirs(config.cache_dir)
    if game.name == "l-game":
        return l_game_player(config.seed, dirs)
    if game.name == "alak":
        options = config.options_for(game)
        size = options.size
        if options.variant != "baljeu":
            raise ValueError(
                "the perfect bot plays Alak under Baljeu's rules only, not the "
                f"{options.variant} variant (use the search bot, or "
                "`referee analyse alak --variant traditional` for the solved results)"
            )
        if size > MAX_PERFECT_ALAK:
            raise ValueError(
                f"the perfect bot solves Alak boards of up to {MAX_PERFECT_ALAK} points, not "
                f"{size}: larger ones take too long at start-up (use the search bot)"
            )
        return alak_player(size, config.seed, dirs)
    raise ValueError(f"the perfect bot plays only the L game and Alak, not {game.name}")


def l_game_player(seed: int | None, dirs: list[Path]) -> LGamePerfect:
    """The L game player from the first valid cached table in `dirs`, else solved (and saved
    to `dirs[0]` after the first move)."""
    table = cache.load_l_game(dirs)
    player = LGamePerfect(seed, table)
    if table is None and dirs:
        player.pending_save = lambda: cache.store_l_game(dirs[0], player.table)
    return player


def alak_player(size: int, seed: int | None, dirs: list[Path]) -> AlakPerfect:
    """`l_game_player` for Alak on `size` points."""
    solution = cache.load_alak(dirs, size)
    player = AlakPerfect(size, seed, solution)
    if solution is None and dirs:
        player.pending_save = lambda: cache.store_alak(dirs[0], player.solution)
    return player
