"""A league's folder and its config file, `league.toml`: its name, the tournament and match
folders it gathers, and how it rates them.

    name = "Lasker Morris, spring term"
    sources = ["../week1", "../week2", "/srv/matches/alice-v2-vs-bob"]

    [fit]
    prior_sd = 500      # Elo: the normal prior on every rating
    bootstrap = 100     # resamples for the intervals and the LOS (0: none)
    level = 0.95        # of the intervals
    seed = 1            # of the resampling, so that a rating run can be repeated
    history = "source"  # rating over time: "source" (after each folder), "week", "month", "none"

Relative source paths are from the league's folder. `league add` and `league remove` edit the
file in place (tomlkit keeps its comments, order and layout) and write it whole (a temporary
file renamed over it), so a crash leaves the old file or the new one, never half of one. A file
that is not such a config is refused with a `LeagueError` naming every problem as a
tournament config does (`FILE:LINE: field: problem`, an unknown setting with the one it most
likely meant).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import tomlkit
from pydantic import BaseModel, ConfigDict, Field
from tomlkit.items import Array

from referee.nofollow import write_file
from referee.toml_config.reading import ConfigFileError, parse_toml, validate
from referee.toml_config.writing import toml_document

CONFIG_NAME = "league.toml"
INDEX_NAME = "league.sqlite"
LOCK_NAME = "league.lock"

History = Literal["none", "source", "week", "month"]


class LeagueError(Exception):
    """A league that cannot be read or changed as asked; the message names the file and why."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FitSettings(_Model):
    # The rating model's (docs/ratings.md): the prior only where the likelihood has no finite
    # maximum, Laplace intervals unless resamples are asked for.
    prior_sd: float = Field(1000.0, gt=0, le=100000, description="Elo")
    bootstrap: int = Field(0, ge=0, le=10000)
    level: float = Field(0.95, gt=0, lt=1)
    seed: int = 1
    history: History = "source"


class LeagueConfig(_Model):
    name: str = Field(min_length=1)
    sources: list[str] = Field(default_factory=list)
    fit: FitSettings = FitSettings()


def config_path(folder: Path) -> Path:
    return folder / CONFIG_NAME


def load_league(folder: Path) -> LeagueConfig:
    """Read and validate `folder`/league.toml."""
    return _validate(config_path(folder), _read(folder))


def _read(folder: Path) -> str:
    path = config_path(folder)
    if not path.is_file():
        raise LeagueError(f"{folder}: not a league (no {CONFIG_NAME}; see `referee league new`)")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LeagueError(f"{path}: cannot read the league's config: {exc}") from None


def _validate(path: Path, text: str) -> LeagueConfig:
    """The config `text` (of the file at `path`); `LeagueError` naming file, line and field
    of every problem, as every config file of the referee does."""
    try:
        return validate(LeagueConfig, parse_toml(text, path), text, path)
    except ConfigFileError as exc:
        raise LeagueError(str(exc)) from None


def render(config: LeagueConfig) -> str:
    """The config as TOML (a tomlkit document: `league add` edits it in place), its sources
    one a line."""
    document = toml_document(config.model_dump(mode="json"))
    sources = document["sources"]
    if isinstance(sources, Array):
        sources.multiline(True)
    return tomlkit.dumps(document)


def save_league(folder: Path, config: LeagueConfig) -> None:
    """Write the config whole: a temporary file, synced, renamed over the old one."""
    write_file(config_path(folder), render(config), sync=True)  # never through a planted link


def edit_sources(folder: Path, sources: list[str]) -> LeagueConfig:
    """Set the config's `sources` to these, editing the file in place: the people who keep a
    league write comments in it (why a week is left out, why so few resamples), and a rewrite
    from the model would drop them. Only the array changes; the rest of the file is kept as it
    is, byte for byte."""
    path = config_path(folder)
    text = _read(folder)
    _validate(path, text)  # a file that does not hold is named, not edited
    document = tomlkit.parse(text)
    if not _edit_array(document.get("sources"), sources):
        entries = tomlkit.array()
        entries.extend(sources)
        entries.multiline(True)
        document["sources"] = entries  # a new key goes before the first table, where it belongs
    edited = tomlkit.dumps(document)
    config = _validate(path, edited)
    write_file(path, edited, sync=True)  # never through a planted link
    return config


def _edit_array(found: object, sources: list[str]) -> bool:
    """Make the existing non-empty array `found` hold `sources` by deleting and appending
    entries, so that its layout and the comments beside the entries that stay are kept; False
    (nothing changed) where that cannot give `sources` in their order."""
    if not isinstance(found, Array) or not len(found):
        return False
    current = [str(entry) for entry in found]
    wanted, present = set(sources), set(current)
    kept = [entry for entry in current if entry in wanted]
    added = [entry for entry in sources if entry not in present]
    if len(wanted) != len(sources) or kept + added != sources:
        return False
    for i in reversed(range(len(current))):
        if current[i] not in wanted:
            del found[i]
    for entry in added:
        found.append(entry)
    return True


def source_folder(folder: Path, source: str) -> Path:
    """Where a source of the league's config is (relative paths are from the league's folder)."""
    path = Path(source)
    return path if path.is_absolute() else folder / path


def source_entry(folder: Path, source: Path) -> str:
    """How the config names a folder: relative to the league's folder where that works."""
    resolved = source.resolve()
    try:
        return os.path.relpath(resolved, folder.resolve())
    except ValueError:
        return str(resolved)
