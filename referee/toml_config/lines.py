"""The line of a TOML file that defines a field, for error messages.

tomllib returns values without positions, so `locate` walks the text: table headers (`[a.b]`,
`[[players]]`, counting array entries) and `key = value` lines (dotted keys too). A field that
is missing is reported at its table's header; anything inside an inline table or array at the
line of the key that holds it.
"""

from __future__ import annotations

import re

Loc = tuple[str | int, ...]

_PART = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(rf"^\s*({_PART}(?:\s*\.\s*{_PART})*)\s*=")


def _split_key(key: str) -> tuple[str, ...]:
    parts = re.findall(_PART, key)
    return tuple(p.strip("\"'") for p in parts)


def field_lines(text: str) -> dict[Loc, int]:
    """Every table and key path of the document, mapped to the (1-based) line defining it."""
    lines: dict[Loc, int] = {}
    table: Loc = ()
    counters: dict[Loc, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            path: Loc = _split_key(header.group(2))
            if header.group(1) == "[[":
                index = counters.get(path, -1) + 1
                counters[path] = index
                path = (*path, index)
            table = path
            lines.setdefault(table, number)
            continue
        key = _KEY.match(line)
        if key:
            lines.setdefault((*table, *_split_key(key.group(1))), number)
    return lines


def locate(text: str, loc: Loc) -> int | None:
    """The line of `loc`, or of its nearest enclosing key or table; None for the top level."""
    lines = field_lines(text)
    path = tuple(loc)
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None
