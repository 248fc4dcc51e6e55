"""What a bot is told on its command line, in one value passed to every bot factory."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from protocols.base import Game

DEFAULT_MOVETIME = 1.0  # seconds; the referee's default limit is 5 s (+0.5 s grace)
DEPTH_MODE_MOVETIME = 4.0  # a fixed-depth search is cut here only to avoid losing on time
DEFAULT_PERFECT_ALAK = 10  # largest Alak board the search solves at start-up (about 0.5 s)
MAX_PERFECT_ALAK = 11  # the largest any bot solves: 1.6 s and 100 MB; 13 needs 30 s and 0.6 GB


@dataclass(frozen=True, slots=True)
class BotConfig:
    """A bot's settings: `seed` None means a fresh random seed; `depth` None means search by
    time alone; `options` are the game's parsed options (they must match the referee's), None
    for the game's defaults; `cache_dir` None means the solved tables' default directories
    (`bots.solvers.cache`)."""

    seed: int | None = None
    movetime: float = DEFAULT_MOVETIME
    depth: int | None = None
    options: Any = None
    perfect_alak: int = DEFAULT_PERFECT_ALAK
    verbose: bool = False
    cache_dir: Path | None = None

    def options_for(self, game: Game[Any, Any, Any]) -> Any:
        """The options model of `game` this bot plays by: those given, else the defaults (which
        loads pydantic: only a bot that reads its options pays for it)."""
        return self.options if self.options is not None else game.parse_options({})
