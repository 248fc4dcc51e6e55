"""A replay as one self-contained HTML file: the player, the game's renderer and the game inline.

The file needs no network and no server: the same style, player and renderer the web view
serves are copied in, with the replay JSON in a data block the player reads on load.
"""

from __future__ import annotations

import html
from importlib import resources

from referee.printable import printable
from referee.replay import Replay
from referee.web.renderers import renderer_source

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{style}
</style>
</head>
<body>
<div id="app"></div>
<script>
{player}
</script>
<script>
{renderer}
</script>
<script type="application/json" id="replay-data">{data}</script>
<script>
Referee.startPlayer(document.getElementById("app"),
  JSON.parse(document.getElementById("replay-data").textContent), {{live: false}});
</script>
</body>
</html>
"""


def static_text(name: str) -> str:
    """A file of the web view's static folder, e.g. `player.js` or `style.css`."""
    return (resources.files("referee.web") / "static" / name).read_text(encoding="utf-8")


def json_in_script(text: str) -> str:
    """JSON that cannot end the <script> element it sits in: `<` only occurs inside JSON
    strings, where the escape `\\u003c` means the same character. So does the escape of any
    character that is not printable (a bidi override, C1's CSI, a line separator: what a bot
    wrote), written so that the page's source, shown in a terminal or an editor, acts on
    nothing and hides nothing; the page itself shows such text as referee/printable.py does."""
    escaped = text.replace("<", "\\u003c")
    if escaped.isprintable():
        return escaped
    # Whitespace outside a string is JSON's own (inside one it is escaped already).
    return "".join(c if c.isprintable() or c in " \n\r\t" else _json_escape(c) for c in escaped)


def _json_escape(char: str) -> str:
    """`char` as JSON writes it escaped: `\\u202e`, or a surrogate pair above U+FFFF."""
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def replay_html(replay: Replay) -> str:
    """The whole HTML page that plays `replay` back."""
    players = replay.header.players
    title = f"{replay.game}: {' vs '.join(p.name for p in players.values())}"
    return _PAGE.format(
        title=html.escape(printable(title)),  # names a bot's author chose
        style=static_text("style.css"),
        player=static_text("player.js"),
        renderer=renderer_source(replay.game),
        data=json_in_script(replay.model_dump_json()),
    )
