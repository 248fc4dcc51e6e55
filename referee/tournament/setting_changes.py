"""What changed between the settings a tournament was started with and those asked for now,
said as a config writes them (`game_options.size: 7 -> 9`), never as a Python or JSON dict: a
table's entries that changed are named one by one, the others left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.tournament.match_setup import shown_value


def changes(key: str, old: Any, new: Any) -> list[str]:
    """`key: old -> new` for each setting under `key` that differs."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        inner = [k for k in {**old, **new} if old.get(k) != new.get(k)]
        return [line for k in inner for line in changes(f"{key}.{k}", old.get(k), new.get(k))]
    return [f"{key}: {shown_value(old)} -> {shown_value(new)}"]
