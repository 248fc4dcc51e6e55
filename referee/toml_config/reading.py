"""A TOML config file read into a pydantic model, every problem reported as
`FILE:LINE: field: problem` (one line each): the one reader of the referee's config files.

`read_model(path, model)` reads, parses and validates a file; `parse_toml` and `validate` are
its two steps, for a reader that looks at the raw table first (the course runner's tournament
file) or validates text that is not on disk yet. `describe_problems` words the problems a
reader finds after validation (checks that one field cannot make alone) the same way.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from referee.records import validation_text
from referee.toml_config.lines import Loc, locate
from referee.toml_config.unknown import (
    misplaced_setting,
    settings_at,
    sub_table_setting,
    unknown_setting,
)

M = TypeVar("M", bound=BaseModel)


class ConfigFileError(ValueError):
    """A config file that cannot be used; the message has one `FILE:LINE: field: problem` per
    line (or `FILE: why` when it cannot be read or parsed)."""


def read_model(
    path: Path,
    model: type[M],
    *,
    what: str = "the config",
    error: type[ConfigFileError] = ConfigFileError,
    context: Mapping[str, Any] | None = None,
) -> tuple[M, str]:
    """The file at `path` as a `model`, and its text (where the lines of the problems that
    its reader finds next are found); `error` (one line per problem) when it cannot be read
    (`what` names the file in that message), is not TOML or does not hold."""
    text = read_text(path, what=what, error=error)
    raw = parse_toml(text, path, error=error)
    return validate(model, raw, text, path, error, context), text


def read_text(
    path: Path, *, what: str = "the config", error: type[ConfigFileError] = ConfigFileError
) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read {what}: {exc}") from None


def parse_toml(
    text: str, path: Path, *, error: type[ConfigFileError] = ConfigFileError
) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None


def validate(
    model: type[M],
    raw: Mapping[str, Any],
    text: str,
    path: Path,
    error: type[ConfigFileError] = ConfigFileError,
    context: Mapping[str, Any] | None = None,
) -> M:
    """`raw` (the tables of `text`, the file at `path`) validated as a `model`."""
    try:
        return model.model_validate(raw, context=dict(context or {}))
    except ValidationError as exc:
        raise error(describe_problems(text, path, model_problems(exc, model))) from None


def model_problems(exc: ValidationError, model: type[BaseModel]) -> list[tuple[Loc, str]]:
    """A validation error of `model` as (field, message) problems in a config file's words."""
    return [(tuple(e["loc"]), validation_message(e, model)) for e in exc.errors()]


def validation_message(error: Any, model: type[BaseModel]) -> str:
    """A pydantic error of `model` in a config file's words: an unknown key gets the setting
    it most likely meant, found among those of the table it is in (or where it belongs, for a
    setting that its table's model says is made elsewhere, or one of its own sub-tables'
    settings)."""
    if error["type"] != "extra_forbidden":
        return validation_text(error)
    loc = tuple(error["loc"])
    table = loc[:-1]
    elsewhere = misplaced_setting(model, table, loc[-1]) or sub_table_setting(model, table, loc[-1])
    return elsewhere or unknown_setting(loc[-1], settings_at(model, table))


def describe_problems(text: str, path: Path, problems: Sequence[tuple[Loc, str]]) -> str:
    """One `FILE:LINE: field: problem` line per problem, in the file's order (`FILE: field:
    problem` first, where the field has no line: a missing top-level setting)."""
    located = [(locate(text, loc), loc, message) for loc, message in problems]
    located.sort(key=lambda problem: problem[0] or 0)  # stable: one line's in their order
    lines = []
    for line, loc, message in located:
        where = f"{path}:{line}" if line is not None else str(path)
        lines.append(f"{where}: {field_name(loc)}: {message}")
    return "\n".join(lines)


def field_name(loc: Loc) -> str:
    """`players[2].command` from `("players", 2, "command")`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(file)"
