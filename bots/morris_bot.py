"""The search bot's Lasker Morris player: the engine with the best core and tables at hand.

At start-up it loads the compiled core from the cache when a trusted one is there (else it
searches with the Python core and, where it may write the cache, compiles the library in the
background after its first move, switching over once it is ready). The endgame tables are read
once both hands are empty, after a move has been sent, so reading them never costs clock time.
"""

from __future__ import annotations

import gc
import sys
from typing import TextIO

from bots.clock import MoveClock
from bots.config import BotConfig
from bots.morris import endgame, native
from bots.morris.engine import Core, MorrisSearch
from bots.morris.pysearch import CONTEMPT, PythonCore
from bots.solvers import cache
from protocols.lasker_morris.defaults import NO_CAPTURE_LIMIT, REPETITION
from protocols.lasker_morris.rules import GAME, LaskerMorrisState, Move


class MorrisChooser:
    """Chooses with `MorrisSearch`; the protocol loop calls `after_move` between moves."""

    def __init__(self, config: BotConfig) -> None:
        options = config.options  # None: the game's defaults, read without loading pydantic
        self.limit = options.no_capture_limit if options else NO_CAPTURE_LIMIT
        self.repetition = options.repetition if options else REPETITION
        self.depth = config.depth
        self.dirs = cache.search_dirs(config.cache_dir)
        self.log: TextIO | None = sys.stderr if config.verbose else None
        self.search = MorrisSearch(self._core(), config.seed)
        self.native = isinstance(self.search.core, native.NativeCore)
        self.building: native.BackgroundBuild | None = None
        self.build_tried = False
        self.endgame_tried = False
        self.last: LaskerMorrisState | None = None
        if not self.native:
            gc.disable()  # see bots.search_bot: a collection mid-search costs too much

    def _core(self) -> Core:
        path = native.find(self.dirs)
        library = native.load(path) if path is not None else None
        if library is None:
            return PythonCore(self.limit, self.repetition, contempt=CONTEMPT)
        return native.NativeCore(library, self.limit, self.repetition, contempt=CONTEMPT)

    def __call__(self, state: LaskerMorrisState, clock: MoveClock) -> Move:
        result = self.search.choose(state, clock, self.depth)
        self.last = state
        if self.log is not None:
            core = "C" if self.native else "Python"
            print(
                f"ply {state.ply}: {GAME.format_move(result.move)} score {result.score} "
                f"depth {result.depth} nodes {result.nodes} in {result.seconds:.3f} s "
                f"({result.nodes_per_second:.0f}/s, {core} core)",
                file=self.log,
                flush=True,
            )
        move: Move = result.move  # the generic search result holds any game's move
        return move

    def after_move(self) -> None:
        self.search.housekeeping()
        if not self.native:
            self._advance_build()
            gc.collect()
        state = self.last
        if state is not None and not self.endgame_tried and not state.blue_hand + state.orange_hand:
            self.endgame_tried = True
            self._load_endgame()

    def _advance_build(self) -> None:
        """Start the compiler once; switch to the compiled core when it has finished."""
        if not self.dirs:
            return
        if self.building is None:
            if not self.build_tried:
                self.build_tried = True
                self.building = native.BackgroundBuild.start(self.dirs[0])
            return
        done = self.building.finish()
        if done is None:
            return
        self.building = None
        library = native.load(native.library_path(self.dirs[0])) if done else None
        if library is not None:
            self.search.core = native.NativeCore(
                library, self.limit, self.repetition, contempt=CONTEMPT
            )
            self.native = True
            self.endgame_tried = False
            gc.enable()

    def _load_endgame(self) -> None:
        tables = cache.load_morris_endgame(self.dirs, self.limit)
        if tables is not None:
            endgame.attach(self.search.core, tables)


def morris_chooser(config: BotConfig) -> MorrisChooser:
    return MorrisChooser(config)
