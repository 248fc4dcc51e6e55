"""The board renderer of each game for the web view and the HTML export.

A built-in game's renderer is `static/games/<game>.js`. A game plug-in may ship its own: an
entry point in the group `referee.renderers` whose name is the game's and whose value is a
string, the renderer's JavaScript, which registers `Referee.renderers[<game>]` as the built-in
ones do (docs/new-game.md). A game without a renderer is shown by the player's generic text view.
"""

from __future__ import annotations

from importlib import metadata, resources

RENDERERS_GROUP = "referee.renderers"


def builtin_renderer(game: str) -> str | None:
    """The renderer shipped with the referee for `game`, if there is one."""
    path = resources.files("referee.web") / "static" / "games" / f"{game}.js"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _comment(text: str) -> str:
    return "/* " + text.replace("*/", "* /") + " */"


def plugin_renderers() -> dict[str, str]:
    """Game name -> renderer source for every plug-in that declares one. A renderer that cannot
    be loaded becomes a script that says why in the browser's console, so the page still works
    (with the generic view) and the fault is named."""
    found: dict[str, str] = {}
    for point in metadata.entry_points(group=RENDERERS_GROUP):
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
            found.setdefault(point.name, f"{_comment(where)}\n{loaded}")
        else:
            message = f"renderer of {point.name} not loaded: {where}: {problem}"
            found.setdefault(point.name, f"{_comment(message)}\nconsole.warn({message!r});")
    return found


def renderer_source(game: str) -> str:
    """The renderer script of `game`: built-in, a plug-in's, or empty (the generic view)."""
    builtin = builtin_renderer(game)
    if builtin is not None:
        return builtin
    return plugin_renderers().get(game, _comment(f"no renderer for {game}: generic view"))


def plugin_script() -> str:
    """Every plug-in renderer in one script, which the web view's page loads."""
    return "\n".join(plugin_renderers().values())
