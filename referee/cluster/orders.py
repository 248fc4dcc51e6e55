"""What the coordinator sends with each game, and what a worker sends back: plain pydantic
models of JSON values, so that a worker needs nothing of the coordinator's files or objects.

A seat says how to start one player on the worker: its command as the config writes it (a
built-in bot is expanded on the worker, with the worker's own Python), and where its files are:
nowhere (a built-in bot), a folder every machine sees at the same path (a shared filesystem),
or a pack named by its content hash (shipped, see shipping.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from protocols import get_game
from referee.players import BUILTIN_PREFIX, PlayerSpec
from referee.tournament.config import LoadedConfig
from referee.tournament.schedule import ScheduledGame

# Cluster tasks' keys start with it: the worker's live lines name their game by its key.
KEY_PREFIX = "referee-game"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Seat(_Model):
    """One player of a game, as a worker starts it."""

    name: str
    command: str  # as in the config: `builtin:...` and `{seed}` are resolved on the worker
    limits: dict[str, Any] | None = None
    folder: str | None = None  # a shared filesystem: the same path on every machine
    digest: str | None = None  # shipped: the content hash of its pack
    capabilities: list[str] = []  # the protocol extensions it declared (`position`)

    @property
    def builtin(self) -> bool:
        return self.command.strip().startswith(BUILTIN_PREFIX)


class GameTask(_Model):
    """One game for a worker to play (it makes the game's `GameOrder` of it there)."""

    key: str
    number: int
    game: str
    options: dict[str, Any]
    settings: dict[str, Any]  # MatchSettings, as JSON
    seed: int
    blue: Seat
    orange: Seat
    opening: list[str] = []  # the moves it starts from (`[openings]`), as the schedule says

    def digests(self) -> list[str]:
        return [s.digest for s in (self.blue, self.orange) if s.digest is not None]

    def player_spec(self, seat: Seat, cwd: Path) -> PlayerSpec:
        """How to start `seat` on this machine, in `cwd` (as `LoadedConfig.player_spec`)."""
        options = get_game(self.game).parse_options(self.options)
        return PlayerSpec.for_game(
            seat.name, seat.command, self.game, options, self.seed,
            cwd=cwd, limits=seat.limits, capabilities=seat.capabilities,
        )  # fmt: skip


class CheckTask(_Model):
    """Start each of these bots once on a worker, as the pre-flight check does locally."""

    game: str
    options: dict[str, Any]
    settings: dict[str, Any]  # MatchSettings, as JSON
    seats: list[Seat]
    concurrency: int
    opening: list[str] = []  # the next game's, if the games start from openings

    def digests(self) -> list[str]:
        return sorted({s.digest for s in self.seats if s.digest is not None})

    def player_spec(self, seat: Seat, cwd: Path) -> PlayerSpec:
        task = GameTask(key="", number=0, game=self.game, options=self.options,
                        settings=self.settings, seed=0, blue=seat, orange=seat)  # fmt: skip
        return task.player_spec(seat, cwd)


class WorkerReturn(_Model):
    """What a worker sends back: the record's bytes exactly as its game wrote them, or the
    packs it lacks (the coordinator sends them and asks again; no game was started)."""

    worker: str
    record: bytes | None = None
    missing: list[str] = []
    checks: list[dict[str, Any]] = []  # a CheckTask's: each bot's `StartCheck`, as a dict


def game_task(
    loaded: LoadedConfig,
    game: ScheduledGame,
    key: str,
    seats: dict[str, Seat],
) -> GameTask:
    """The task of one scheduled game, its colours and seed exactly the schedule's."""
    config = loaded.config
    return GameTask(
        key=key,
        number=game.number,
        game=config.game,
        options=config.game_options,
        settings=config.match_settings().model_dump(mode="json"),
        seed=game.seed,
        blue=seats[game.blue],
        orange=seats[game.orange],
        opening=list(game.opening),
    )
