"""A game's conformance data: what the generic tests (test_conformance.py) need to know about
it, read from the `conformance.json` beside its rules (protocols.parts); a game without the file
gets the defaults."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, ConfigDict

from protocols import parts


class Conformance(BaseModel):
    """The fields of `conformance.json`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # A move may take a piece off the board without landing anywhere (Lielow's `x off`).
    leaves_the_board: bool = False
    # A move may touch no square at all (traditional Alak's `pass`).
    passes: bool = False
    # Option sets the generic tests play besides the defaults (variants, other board sizes).
    options: tuple[dict[str, Any], ...] = ()


@functools.cache
def conformance_of(name: str) -> Conformance:
    """The conformance data of game `name` (a file that does not read is a failure, named)."""
    text = parts.text(name, parts.CONFORMANCE)
    return Conformance() if text is None else Conformance.model_validate_json(text)
