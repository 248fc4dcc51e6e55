"""The search bot: iterative-deepening alpha-beta with each game's evaluation.

Lasker Morris has an engine of its own (`bots.morris`: bitboards, a compiled core and exact
endgame tables). The L game is played from its solved table, and so is Alak (Baljeu's rules) on
boards up to `--perfect-alak` points (solved at start-up); every other game, larger Alak boards
and traditional Alak are searched by the generic engine below. With
`--depth N` the search stops at depth N (the clock still cuts it short rather than lose on time).
`--verbose` reports each search (depth, score, nodes, speed) on stderr.
"""

from __future__ import annotations

import gc
import sys
from typing import Any, TextIO

from bots.clock import MoveClock
from bots.config import BotConfig
from bots.evaluation import model_for
from bots.morris_bot import MorrisChooser
from bots.perfect_bot import perfect_chooser
from bots.player import Chooser
from bots.search.engine import Search
from protocols.base import Game

# Full garbage collections run between moves, this often (see SearchChooser).
COLLECT_EVERY = 20


class SearchChooser:
    """The search bot's chooser.

    Python's cyclic garbage collector is switched off: a search allocates millions of small
    objects, and a full collection in the middle of one stalls it for tens of milliseconds,
    past its time limit. The search itself makes no reference cycles (everything it drops is
    freed at once), so nothing piles up; a collection still runs between moves now and then.
    """

    def __init__(self, game: Game[Any, Any, Any], config: BotConfig) -> None:
        self.game = game
        self.depth = config.depth
        self.search = Search(model_for(game.name), config.seed)
        self.log: TextIO | None = sys.stderr if config.verbose else None
        self.moves = 0
        gc.disable()

    def __call__(self, state: Any, clock: MoveClock) -> Any:
        result = self.search.choose(state, clock, self.depth)
        if self.log is not None:
            print(
                f"ply {state.ply}: {self.game.format_move(result.move)} score {result.score} "
                f"depth {result.depth} nodes {result.nodes} "
                f"in {result.seconds:.3f} s ({result.nodes_per_second:.0f}/s)",
                file=self.log,
                flush=True,
            )
        return result.move

    def after_move(self) -> None:
        self.search.housekeeping()
        self.moves += 1
        if self.moves % COLLECT_EVERY == 0:
            gc.collect()


def search_chooser(game: Game[Any, Any, Any], config: BotConfig) -> Chooser:
    if game.name == "lasker-morris":
        return MorrisChooser(config)
    if game.name == "l-game":
        return perfect_chooser(game, config)
    if game.name == "alak":
        options = config.options_for(game)
        # The solved tables are of Baljeu's rules, and of boards it solves at start-up.
        if options.variant == "baljeu" and options.size <= config.perfect_alak:
            return perfect_chooser(game, config)
    return SearchChooser(game, config)
