"""Who plays a run: every player of a tournament's config as it starts, with its content hash,
computed once when the run starts (a bot's folder may be large, and every game, the pre-flight
check, the host's containment and a cluster's orders must name the same bot).

`Roster.of(loaded)` hashes each player's bot once; `spec(name, seed)` is that player ready for
one game (a built-in bot's command expanded, `{seed}` filled in). Relative folders are from the
config's own folder, which is where a bot runs by default.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from protocols import get_game
from protocols.options import GameOptions
from referee import __version__
from referee.bot_content import bot_content_hash
from referee.players import PlayerSpec
from referee.tournament.config import LoadedConfig, PlayerConfig


@dataclass(frozen=True)
class Roster:
    """Every player's spec, but for the game's seed: frozen, made once per run."""

    game: str
    options: GameOptions
    players: Mapping[str, PlayerSpec]  # by name, in the config's order; `{seed}` unfilled

    @classmethod
    def of(cls, loaded: LoadedConfig) -> Roster:
        config = loaded.config
        options = get_game(config.game).parse_options(config.game_options)
        players = {p.name: _template(p, loaded.base_dir) for p in config.players}
        return cls(config.game, options, MappingProxyType(players))

    @property
    def names(self) -> list[str]:
        return list(self.players)

    def spec(self, name: str, game_seed: int) -> PlayerSpec:
        """How to start player `name` for one game (built-ins expanded, `{seed}` filled in)."""
        player = self.players[name]
        return PlayerSpec.for_game(
            name,
            player.command,
            self.game,
            self.options,
            game_seed,
            cwd=player.cwd,
            limits=player.limits,
            content_hash=player.content_hash,
            capabilities=player.capabilities,
        )

    def specs(self, names: Iterable[str] | None = None, game_seed: int = 0) -> list[PlayerSpec]:
        """The players `names` (all of them by default), each for a game of `game_seed`."""
        return [self.spec(name, game_seed) for name in (self.names if names is None else names)]


def _template(player: PlayerConfig, base_dir: Path) -> PlayerSpec:
    """A player as its config entry gives it, with the hash of what its bot is made of: its
    own folder's files (not a folder it shares with others), its command and the referee's
    version."""
    cwd = (base_dir / player.cwd if player.cwd else base_dir).resolve()
    own = cwd if player.cwd and not player.shared_cwd else None
    return PlayerSpec(
        name=player.name,
        command=player.command,
        cwd=cwd,
        limits=player.limits,
        capabilities=frozenset(player.capabilities),
        content_hash=bot_content_hash(player.command, cwd, own, __version__),
    )
