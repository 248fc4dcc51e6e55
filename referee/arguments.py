"""Values that several commands read from their command line in the same way: game options
given as `-o KEY=VALUE`, a game clock given as `TOTAL[+INC]`, and the folder the bots' commands
are read from.

Only the standard library here: the commands' parsers are built before anything heavy loads.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def command_line_folder() -> Path:
    """Where a bot given on the command line (`play`, `check`, `match`) runs, and what the
    relative paths of its command are read from: the folder the command was run from, as a
    shell would read them. (Built-in bots run elsewhere, whatever this says.)"""
    return Path.cwd().absolute()


def parse_clock(text: str) -> tuple[float, float]:
    """`300+2` -> (300.0, 2.0); `300` -> (300.0, 0.0)."""
    total, _, increment = text.partition("+")
    try:
        return float(total), float(increment or 0)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a clock: {text!r} (seconds per side, plus seconds per move: e.g. 300+2)"
        ) from None


def parse_option_values(pairs: list[str]) -> dict[str, Any]:
    """`["size=9", "name=x"]` -> {"size": 9, "name": "x"}: a value is read as JSON, else kept
    as the text it is; ValueError for a pair that is not KEY=VALUE."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"option {pair!r} is not KEY=VALUE")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options
