"""A game's options as a command line gives them (`-o KEY=VALUE`, repeatable): each value read
as the game's options model types it, so that `-o size=07` is the number 7 wherever it goes (a
match's config, a record), and each problem said in the flag's words, an unknown key with the
option it most likely meant (`-o sizee=7: alak has no option 'sizee': did you mean 'size'?`).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from protocols import get_game
from referee.records import validation_text
from referee.tournament.unknown_settings import closest


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
    return f"{given}: {validation_text(error)}"


def _typed(value: Any) -> str:
    """A value as it was typed after `=` (read as JSON where it was JSON)."""
    return value if isinstance(value, str) else json.dumps(value)
