"""Text that is not ours (a bot's name, a verdict quoting a bot, a student's folder name) as a
rich renderable: never read as rich markup (`[bold]`, or a stray `[/x]` that would make rich
raise), and with its control characters written as escapes (`referee.printable`).

A table cell or title given as a `str` is parsed as markup; given as this `Text`, it is shown
as it is.
"""

from __future__ import annotations

from rich.text import Text

from referee.printable import printable


def plain(text: str | None, style: str = "", *, lines: bool = False) -> Text:
    """`text` shown as written (None: empty); with `lines`, its newlines and tabs are kept."""
    return Text(printable(text or "", lines=lines), style=style)
