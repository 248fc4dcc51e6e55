"""A game's optional parts, found by convention next to its rules: no list names them.

A game's entry point names its `Game` object, e.g. `protocols.alak.rules:GAME` or
`connect_four.rules:GAME`; the package holding that module (`protocols.alak`, `connect_four`)
is the game's package, and its parts are the modules and files of that package with these names:

- `evaluation` (module): the search bots' model of the game, `model()` returning a
  `protocols.search.Model`, or `evaluate(state) -> int` scoring a state of the rules;
- `board` (module): `draw(state_json, marks, colour) -> Picture`, its terminal drawing
  (`protocols.drawing`);
- `renderer.js`: its board in the web view and the HTML export;
- `rules.md`: its rules page;
- `conformance.json`: what the generic conformance tests need to know about the game.

A game whose object sits in a top-level module (`my_game:GAME`, no package) has no parts. Looking
a part up imports the game's package (its `__init__.py`) and the part, never its rules.
"""

from __future__ import annotations

import importlib
import importlib.util
from importlib import resources
from types import ModuleType

from protocols.registry import GameEntry, entry

EVALUATION = "evaluation"
BOARD = "board"
RENDERER = "renderer.js"
RULES_PAGE = "rules.md"
CONFORMANCE = "conformance.json"


class PartNotLoadable(Exception):
    """A part a game's package has but that cannot be read or imported."""


def _problem(found: GameEntry, part: str, exc: BaseException) -> PartNotLoadable:
    return PartNotLoadable(
        f"the {part} of game {found.name!r} cannot be loaded ({found.source}, entry point "
        f"{found.name} = {found.value!r}): {type(exc).__name__}: {exc}"
    )


def package_of(found: GameEntry) -> str | None:
    """The package holding the module of a game's entry point (None: a top-level module)."""
    module = found.value.partition(":")[0].strip()
    try:
        spec = importlib.util.find_spec(module)
    except Exception as exc:  # a plug-in's package that fails to import is the plug-in's fault
        raise _problem(found, "package", exc) from exc
    if spec is None:
        raise _problem(found, "package", ModuleNotFoundError(f"no module named {module!r}"))
    return spec.parent or None


def module(name: str, part: str) -> ModuleType | None:
    """The part `part` (`evaluation`, `board`) of game `name`, imported; None if it has none.
    Raises UnknownGame for an unknown game, PartNotLoadable for a part that fails to import."""
    found = entry(name)
    package = package_of(found)
    if package is None:
        return None
    qualified = f"{package}.{part}"
    try:
        if importlib.util.find_spec(qualified) is None:
            return None
        return importlib.import_module(qualified)
    except Exception as exc:  # a broken part is reported with the game that ships it
        raise _problem(found, part, exc) from exc


def text(name: str, filename: str) -> str | None:
    """The file `filename` (`renderer.js`, `rules.md`, ...) of game `name`'s package; None if
    it has none. Raises UnknownGame or PartNotLoadable as `module` does."""
    found = entry(name)
    package = package_of(found)
    if package is None:
        return None
    try:
        resource = resources.files(package) / filename
        return resource.read_text(encoding="utf-8") if resource.is_file() else None
    except (OSError, UnicodeDecodeError) as exc:
        raise _problem(found, filename, exc) from exc
