"""A tournament's config read for a command: every check of `referee.tournament.config_file`,
and the `[cluster] address` parsed by the cluster package. The tournaments cannot import the
cluster (it plays their games, above them), so the two meet here.
"""

from __future__ import annotations

import os
from pathlib import Path

from referee.cluster.address import parse_address
from referee.tournament.config import LoadedConfig, TournamentConfig
from referee.tournament.config_file import checked_config, read_config, read_config_text


def load_config(path: str | os.PathLike[str]) -> LoadedConfig:
    """Read and validate a tournament config; `ConfigError` names file, line and field."""
    return read_config(path, check_address=parse_address)


def parse_config(text: str, path: Path) -> LoadedConfig:
    """Validate the text of the tournament config kept at `path`, as `load_config` does."""
    return read_config_text(text, path, check_address=parse_address)


def check_config(config: TournamentConfig, text: str, path: Path) -> LoadedConfig:
    """A config made in code (a match's, from its flags), written as `text` at `path`, checked
    as `load_config` checks a file's."""
    return checked_config(config, text, path, check_address=parse_address)
