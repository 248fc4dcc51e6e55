"""A tournament's config as data: the pydantic models of its file (TOML), and a validated config
with where it came from (`LoadedConfig`). The formats read it; `config_file.py` reads and checks
the file, above both.

Every problem is reported as `FILE:LINE: FIELD: message`, the line found by walking the TOML text
(tomllib gives values, not positions). Relative paths in the file (`directory`, a player's `cwd`)
are relative to the file's own folder, and so is the folder a bot runs in by default.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from protocols import UnknownGame, canonical_name, get_game
from referee.isolation.limits import Limits
from referee.match.settings import MatchConfig
from referee.openings import Book, load_book
from referee.toml_config.reading import ConfigFileError
from referee.tournament.format_settings import (
    KnockoutSettings,
    StagesSettings,
    SwissSettings,
    is_staged,
)

# The key, in the validation context, of the function that parses a `[cluster] address`.
ADDRESS_CHECK = "check_address"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PlayerConfig(_Model):
    name: str = Field(min_length=1, max_length=64, pattern=r"^\S(.*\S)?$")
    command: str = Field(min_length=1)
    cwd: Path | None = None
    # True: `cwd` is not the bot's own folder but one it shares (where `referee match` was run,
    # holding both bots and more): its contents are no part of the bot's content hash.
    shared_cwd: bool = False
    # True: its command was written by whoever runs the tournament, who vouches for it, and may
    # name files outside `cwd`; false (the default: a command from a submission) it may name
    # only what lies in `cwd`, the system's folders and its interpreter. The sandbox keeps every
    # bot from the others' folders and the run's own either way.
    trusted: bool = False
    limits: Limits | None = None  # this player's own resource limits (default: [match.limits])
    # The protocol extensions it understands: "position" lets it start games from openings
    # (built-in bots understand it without saying so).
    capabilities: list[Literal["position"]] = Field(default_factory=list)

    @field_validator("command")
    @classmethod
    def _splits_into_words(cls, value: str) -> str:
        # Split as the bot will be started (`referee.bot.split_command`), so that a command
        # that cannot be is named at load with its file and line, among the config's other
        # mistakes, not at the start check with neither.
        try:
            words = shlex.split(value)
        except ValueError as exc:
            raise ValueError(f"cannot be split into words: {exc}") from None
        if not words:
            raise ValueError("the command is empty")
        return value


class OpeningsSettings(_Model):
    """`[openings]`: every game starts from an opening (the protocol's `position` extension),
    both games of a pair from the same one with the colours swapped."""

    plies: int = Field(0, ge=0, le=200, description="random openings of this many plies")
    book: Path | None = None  # a file of openings, one per line (relative to the config's folder)
    order: Literal["random", "sequential"] = "random"  # how pairs take the book's openings
    # A line of the book's file, as its errors name them: the first opening on it or after it
    # (blank and comment lines hold none).
    start: int = Field(1, ge=1, description="the book's line the first pair takes (sequential)")

    @property
    def enabled(self) -> bool:
        return self.plies > 0 or self.book is not None


class ClusterSettings(_Model):
    """`[cluster]`: play the games on a Dask cluster (docs/cluster.md)."""

    address: str | None = None  # `local:N` or a scheduler's tcp://HOST:PORT (or --cluster)
    # True: every worker sees the bots' folders at the paths this config gives; False: each
    # bot's folder is packed and sent to the workers by its content hash.
    shared_filesystem: bool = False
    # Game slots of each worker of a `local:N` cluster (default: this machine's cores / N).
    slots: int | None = Field(None, ge=1, le=1024)

    @field_validator("address")
    @classmethod
    def _known_address(cls, value: str | None, info: ValidationInfo) -> str | None:
        # Addresses are parsed by the cluster package (`referee.cluster.address`), which sits
        # above the tournaments: the config's reader passes its parser in the context.
        check = (info.context or {}).get(ADDRESS_CHECK)
        if value is not None and check is not None:
            check(value)  # its ValueError names what is wrong
        return value


class TournamentConfig(MatchConfig):
    # [time_control] and [match] (MatchConfig): how every game is refereed, `match_settings()`.
    name: str = Field(min_length=1)
    game: str
    game_options: dict[str, Any] = Field(default_factory=dict)
    seed: int = 1
    format: Literal["round-robin", "gauntlet", "stages", "knockout", "swiss"] = "round-robin"
    challengers: list[str] = Field(default_factory=list)
    games_per_pairing: int = Field(2, ge=1, le=1000)
    concurrency: int | None = Field(None, ge=1, le=10000)
    one_game_per_player: bool = False
    max_replays: int = Field(3, ge=0, le=100)
    directory: Path | None = None
    players: list[PlayerConfig] = Field(min_length=2)
    # The staged formats' settings (docs/formats.md).
    stages: StagesSettings = Field(default_factory=StagesSettings)
    knockout: KnockoutSettings = Field(default_factory=KnockoutSettings)
    swiss: SwissSettings = Field(default_factory=SwissSettings)
    cluster: ClusterSettings | None = None
    openings: OpeningsSettings = Field(default_factory=OpeningsSettings)

    @field_validator("game")
    @classmethod
    def _canonical_game(cls, value: str) -> str:
        # An unknown name is kept as written; `check_config` reports it with its line.
        try:
            return canonical_name(value)
        except UnknownGame:
            return value

    @property
    def player_names(self) -> list[str]:
        return [p.name for p in self.players]

    def effective_concurrency(self) -> int:
        return self.concurrency or os.cpu_count() or 1

    def cluster_address(self, option: str | None) -> str | None:
        """The cluster to play on: `--cluster`, else `[cluster] address`, else None (here)."""
        if option is not None:
            return option
        return self.cluster.address if self.cluster else None

    def schedule_key(self) -> dict[str, Any]:
        """Everything the schedule depends on: changing any of it is refused on resume."""
        game = get_game(self.game)
        return (
            {
                "game": self.game,
                "game_options": game.parse_options(self.game_options).model_dump(mode="json"),
                "players": self.player_names,
                "format": self.format,
                "challengers": self.challengers,
                "games_per_pairing": self.games_per_pairing,
                "seed": self.seed,
            }
            | _format_key(self)
            | _openings_key(self)
        )


# The sha256 of the book's file, in the openings of a key (`LoadedConfig.schedule_key`).
BOOK_HASH = "book_sha256"


def comparable_key(stored: Mapping[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """`wanted` as it compares with the `stored` key: without the book's hash when the stored
    key has none (a tournament started before books were hashed: its book was not recorded, so
    it cannot be checked)."""
    old, new = stored.get("openings"), wanted.get("openings")
    if isinstance(old, dict) and isinstance(new, dict) and BOOK_HASH not in old:
        return {**wanted, "openings": {k: v for k, v in new.items() if k != BOOK_HASH}}
    return wanted


def changed_keys(stored: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[str]:
    """The entries in which two schedule keys differ, those of either: an entry only one key
    has (openings given to a run that resumes a tournament without, or left out of one that
    had them) is a change too."""
    return [key for key in {**stored, **wanted} if stored.get(key) != wanted.get(key)]


def book_change(stored: Mapping[str, Any], wanted: Mapping[str, Any]) -> str | None:
    """When the openings of two keys differ only by their book's content: that change in
    words; else None."""
    old, new = stored.get("openings"), wanted.get("openings")
    if not isinstance(old, dict) or not isinstance(new, dict):
        return None
    if {k: v for k, v in old.items() if k != BOOK_HASH} != {
        k: v for k, v in new.items() if k != BOOK_HASH
    } or old.get(BOOK_HASH) == new.get(BOOK_HASH):
        return None
    return (
        f"the book {new.get('book')} has changed since its games started (sha256 "
        f"{str(old.get(BOOK_HASH))[:16]}... then, {str(new.get(BOOK_HASH))[:16]}... now), and "
        "its openings are part of what a run resumes"
    )


def _openings_key(config: TournamentConfig) -> dict[str, Any]:
    """The openings, where there are any (a tournament without them keeps its old key)."""
    if not config.openings.enabled:
        return {}
    return {"openings": config.openings.model_dump(mode="json")}


def _format_key(config: TournamentConfig) -> dict[str, Any]:
    """A staged format's own settings, and the replay limit that says when a game is void for
    good (which decides later stages); none for round robins and gauntlets, whose stored keys
    predate these."""
    if not is_staged(config.format):
        return {}
    own = getattr(config, config.format).model_dump(mode="json", exclude={"ratings_from"})
    return {config.format: own, "max_replays": config.max_replays}


class ConfigError(ConfigFileError):
    """A config that cannot be used; the message has one `FILE:LINE: FIELD: problem` per line."""


# The first line of a config that `referee course collect` writes: its players' commands and
# folders come from the students' submissions, so a broken bot is fixed by a new submission.
COLLECTED_MARK = "# Written by `referee course collect`"


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config and where it came from. Its players, with their content hashes,
    are made once when a run starts (`roster.py`)."""

    config: TournamentConfig
    path: Path
    collected: bool = False  # written by `referee course collect` (COLLECTED_MARK)
    # The openings book, read once per run: the openings played and the hash a resumed run is
    # checked by come from the same read.
    _books: dict[Path, Book] = field(default_factory=dict, compare=False, repr=False)

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def directory(self) -> Path:
        """The folder holding the store and the records."""
        chosen = self.config.directory or Path(self.path.stem)
        return chosen if chosen.is_absolute() else self.base_dir / chosen

    def book(self) -> Book | None:
        """The book of `[openings]` (None: none), read once; `OSError` or `OpeningError` for
        one that cannot be read (reading the config reports those first)."""
        path = self.config.openings.book
        if path is None:
            return None
        path = path if path.is_absolute() else self.base_dir / path
        if path not in self._books:
            self._books[path] = load_book(path, self.config.game, self.config.game_options)
        return self._books[path]

    def schedule_key(self) -> dict[str, Any]:
        """The config's `schedule_key`, with the sha256 of its book's file in its openings:
        a run that resumes plays from the openings it started with, or is refused."""
        key = self.config.schedule_key()
        book = self.book()
        if book is not None:
            key["openings"] = {**key["openings"], BOOK_HASH: book.sha256}
        return key
