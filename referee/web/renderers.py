"""The board renderer of each game for the web view and the HTML export.

A game's renderer is the `renderer.js` of its package (protocols.parts), built-in or plug-in
alike: a script that registers `Referee.renderers[<game>]`. A plug-in published before that
convention may declare it in the entry-point group `referee.renderers` instead: the entry
point's name is the game's and its value a string, the renderer's JavaScript (docs/new-game.md).
A game without a renderer is shown by the player's generic text view. A renderer that cannot be
read becomes a script that says why in the browser's console, so the page still works.
"""

from __future__ import annotations

from importlib import metadata

from protocols import UnknownGame, entries, parts

RENDERERS_GROUP = "referee.renderers"


def _comment(text: str) -> str:
    return "/* " + text.replace("*/", "* /") + " */"


def _warning(message: str) -> str:
    return f"{_comment(message)}\nconsole.warn({message!r});"


def _package_renderer(game: str) -> str | None:
    """The `renderer.js` of `game`'s package; None if it has none (or the game is unknown)."""
    try:
        return parts.text(game, parts.RENDERER)
    except UnknownGame:
        return None
    except parts.PartNotLoadable as exc:  # a plug-in's fault: reported, never a server error
        return _warning(f"renderer of {game} not loaded: {exc}")


def entry_point_renderers(skip: frozenset[str] = frozenset()) -> dict[str, str]:
    """Game name -> renderer source for every plug-in that declares one in `referee.renderers`,
    but the games in `skip` (whose packages have their own), none of which is loaded."""
    found: dict[str, str] = {}
    for point in metadata.entry_points(group=RENDERERS_GROUP):
        if point.name in skip or point.name in found:
            continue
        dist = point.dist.name if point.dist is not None else "an unknown distribution"
        where = f"entry point {point.name} = {point.value!r} ({RENDERERS_GROUP}, {dist})"
        try:
            loaded = point.load()
        except Exception as exc:  # a plug-in's fault: reported, never a server error
            loaded = None
            problem = f"{type(exc).__name__}: {exc}"
        else:
            problem = f"a {type(loaded).__name__}, not a string of JavaScript"
        if isinstance(loaded, str):
            found[point.name] = f"{_comment(where)}\n{loaded}"
        else:
            found[point.name] = _warning(f"renderer of {point.name} not loaded: {where}: {problem}")
    return found


def renderer_source(game: str) -> str:
    """The renderer script of `game`: its package's, a plug-in's entry point's, or a comment
    (the generic view)."""
    script = _package_renderer(game)
    if script is not None:
        return script
    declared = entry_point_renderers()
    return declared.get(game, _comment(f"no renderer for {game}: generic view"))


def all_renderers() -> str:
    """Every installed game's renderer in one script, which the web view's page loads."""
    scripts = {e.name: script for e in entries() if (script := _package_renderer(e.name))}
    scripts.update(entry_point_renderers(skip=frozenset(scripts)))
    return "\n".join(scripts.values())
