"""What a config file is told about a setting it does not know: the setting it most likely meant
("did you mean 'move_timeout'?"), found among the settings of the table it is written in.

`settings_at(model, loc)` walks a pydantic model along an error's location to the model of the
table holding the unknown key; `unknown_setting(key, known)` words the message. A table's model
may name settings that belong in another table (`MISPLACED`, a mapping of setting to message):
those are told where they go instead (`misplaced_setting`), and so is a setting of one of its
own sub-tables written in it (`rounds = 4` at the top of a tournament config, which belongs
under `[swiss]`: `sub_table_setting`).
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel


def closest(key: str | int, known: Iterable[str]) -> str | None:
    """The one of `known` that `key` most likely meant, if any is close."""
    close = difflib.get_close_matches(str(key), list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_setting(key: str | int, known: Iterable[str]) -> str:
    """The message for an unknown `key` among the settings `known`."""
    if (meant := closest(key, known)) is not None:
        return f"unknown setting: did you mean {meant!r}?"
    return "unknown setting (check the spelling)"


def settings_at(model: type[BaseModel], loc: tuple[str | int, ...]) -> list[str]:
    """The settings of the table at `loc` under `model` (the key itself excluded from `loc`);
    none where the table is not a model (a free-form table, a list of values)."""
    return list(_fields(_table_model(model, loc)))


def misplaced_setting(
    model: type[BaseModel], loc: tuple[str | int, ...], key: str | int
) -> str | None:
    """Where `key`, refused by the table at `loc` under `model`, is set instead (the message
    its table's model gives in `MISPLACED`), or None."""
    misplaced = getattr(_table_model(model, loc), "MISPLACED", None)
    return misplaced.get(key) if isinstance(misplaced, Mapping) else None


def sub_table_setting(
    model: type[BaseModel], loc: tuple[str | int, ...], key: str | int
) -> str | None:
    """Where `key`, refused by the table at `loc` under `model`, is a setting of one of that
    table's own sub-tables (`[swiss]`, `[[players]]`): the message naming them, or None."""
    prefix = ".".join(str(part) for part in loc if not isinstance(part, int))
    tables = []
    for name, annotation in _fields(_table_model(model, loc)).items():
        if key in _fields(_model_in(annotation)):
            many = typing.get_origin(annotation) is list
            path = f"{prefix}.{name}" if prefix else name
            tables.append(f"[[{path}]]" if many else f"[{path}]")
    if not tables:
        return None
    return f"unknown setting here: it belongs under {' or '.join(tables)}"


def _table_model(model: type[BaseModel], loc: tuple[str | int, ...]) -> Any:
    """The model of the table at `loc` under `model`; None where it is not one."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue  # an item of a list of tables: the same model
        fields = _fields(current)
        if part not in fields:
            return None
        current = _model_in(fields[part])
    return current


def _fields(candidate: Any) -> dict[str, Any]:
    if isinstance(candidate, type) and issubclass(candidate, BaseModel):
        return {name: field.annotation for name, field in candidate.model_fields.items()}
    return {}


def _model_in(annotation: Any) -> Any:
    """The model an annotation holds: itself, or inside `X | None`, `list[X]`, `dict[str, X]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType, list, dict, tuple):
        for argument in typing.get_args(annotation):
            found = _model_in(argument)
            if found is not None:
                return found
    return None
