"""A game's options as a command line gives them (`-o KEY=VALUE`, repeatable): each value read
as the game's options model types it, so that `-o size=07` is the number 7 wherever it goes (a
match's config, a record), and each problem said in the flag's words, an unknown key with the
option it most likely meant (`-o sizee=7: alak has no option 'sizee': did you mean 'size'?`).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError
from pydantic.fields import FieldInfo

from protocols import get_game
from referee.records import validation_text
from referee.toml_config.unknown import closest


def game_options(game_name: str, raw: dict[str, Any]) -> dict[str, Any]:
    """The options given as `-o KEY=VALUE` (`raw`, from `referee.arguments.parse_option_values`),
    each as the game's model made it (a JSON value); ValueError names each pair that is wrong,
    and why, one a line."""
    game = get_game(game_name)
    try:
        parsed = game.parse_options(raw)
    except ValidationError as exc:
        known = list(game.options_model.model_fields)
        problems = [_problem(error, raw, game_name, known) for error in exc.errors()]
        raise ValueError("\n".join(problems)) from None
    typed = parsed.model_dump(mode="json")
    return {key: typed[key] for key in raw}


def _problem(error: Any, raw: dict[str, Any], game_name: str, known: list[str]) -> str:
    key = str(error["loc"][0]) if error["loc"] else ""
    given = f"-o {key}={_typed(raw[key])}" if key in raw else f"-o {key}"
    if error["type"] == "extra_forbidden":
        meant = closest(key, known)
        guess = f": did you mean {meant!r}?" if meant is not None else ""
        options = ", ".join(known) or "none"
        return f"{given}: {game_name} has no option {key!r}{guess} (its options: {options})"
    field = get_game(game_name).options_model.model_fields.get(key)
    expected = _expected(error, field)
    if field is None or expected is None:  # a validator's own words say what is wanted
        return f"{given}: {validation_text(error)}"
    default = "" if field.default is None else f" (default {_typed(field.default)})"
    return f"{given}: {game_name}'s {key} is {expected}{default}"


# What a value is, by pydantic's error for a value of the wrong type; and by the type itself.
_KINDS = {
    **dict.fromkeys(("int_parsing", "int_type", "int_from_float"), "a whole number"),
    **dict.fromkeys(("float_parsing", "float_type", "finite_number"), "a number"),
    **dict.fromkeys(("bool_parsing", "bool_type"), "true or false"),
    "string_type": "text",
    **dict.fromkeys(("list_type", "tuple_type"), "a list"),
}
_TYPES = {int: "a whole number", float: "a number", bool: "true or false", str: "text"}
_BOUNDS = ("greater_than_equal", "greater_than", "less_than_equal", "less_than")


def _expected(error: Any, field: FieldInfo | None) -> str | None:
    """What the option takes, in words ("a whole number from 5 to 26"), or None where the error
    says something else (a validator's own rule)."""
    if len(error["loc"]) != 1:
        return None  # an item of a list option: the error names it
    kind = _KINDS.get(error["type"])
    if kind is None and error["type"] in _BOUNDS and field is not None:
        kind = _TYPES.get(field.annotation)  # type: ignore[arg-type]
    if kind is None or field is None:
        return None
    return kind + _range(field)


def _range(field: FieldInfo) -> str:
    """The bounds of a number option (" from 5 to 26", " of at least 0"), as its model says."""
    low = high = None
    for bound in field.metadata:
        low = next((getattr(bound, a) for a in ("ge", "gt") if hasattr(bound, a)), low)
        high = next((getattr(bound, a) for a in ("le", "lt") if hasattr(bound, a)), high)
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f" of at least {low}"
    return "" if high is None else f" of at most {high}"


def _typed(value: Any) -> str:
    """A value as it was typed after `=` (read as JSON where it was JSON)."""
    return value if isinstance(value, str) else json.dumps(value)
