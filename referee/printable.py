"""Untrusted text made safe to show: what a bot wrote (its stderr, an offending line, a name it
chose) reaches the operator's terminal, a CSV file and web pages only through here.

A terminal obeys what it is sent: ESC and C1 sequences clear the screen, set the window title,
write the clipboard (OSC 52) or move the cursor; a carriage return or a line separator lets a
bot print a line of its own, such as a forged `Game over!`; bidi overrides reorder what is
shown. Every such character is written as a visible escape instead (`\\x1b`, `\\u202e`), the
way Python's `repr` writes it, so nothing a bot wrote is lost and nothing it wrote acts. A
spreadsheet obeys a cell that starts with `=`, `+`, `-` or `@` as a formula: `csv_cell` quotes
that away too.

Only the standard library: every layer of the referee may show a bot's text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

# Unicode's controls (C0, DEL, C1), formats (bidi overrides and isolates, zero-width marks),
# surrogates (undecodable bytes) and the line and paragraph separators.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# A spreadsheet reads a cell starting with one of these as a formula (tab and carriage return
# are escaped before this is looked at).
_FORMULA_STARTS = ("=", "+", "-", "@")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


@cache
def is_unsafe(char: str) -> bool:
    """Whether `char` is one that `printable` escapes (a control, format or separator)."""
    return unicodedata.category(char) in _UNSAFE_CATEGORIES


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, lines: bool = False) -> str:
    """`text` with every control, format and separator character written as a visible escape.

    With `lines`, newlines and tabs are kept (a stderr tail shown as lines: a `\\r\\n` ending
    counts as a newline); otherwise they are escaped too, so the text stays on one line and
    nothing in it starts a line of its own."""
    if lines:
        text = text.replace("\r\n", "\n")
    keep = "\n\t" if lines else ""
    if text.isprintable():
        return text  # the common case, at C speed
    return "".join(_escaped(c) if c not in keep and is_unsafe(c) else c for c in text)


def csv_cell(value: object) -> object:
    """A CSV cell from untrusted text: printable on one line, and a text a spreadsheet would
    take for a formula (`=HYPERLINK(...)`, `-2+3`, `@SUM(...)`) quoted with a leading `'`. Values
    that are not text (numbers, None) and text that is a plain number pass as they are."""
    if not isinstance(value, str):
        return value
    text = printable(value)
    if text.startswith(_FORMULA_STARTS) and not _NUMBER.match(text):
        return "'" + text
    return text
