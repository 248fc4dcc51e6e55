"""TOML text the referee writes for people to edit: comments in one column, and any text as a
string that parses back to it.

`align_comments` lines up the comments after the settings of a file the referee writes, whatever
values were filled in; `toml_string` writes any text as a TOML string that parses back to it;
`toml_value` any value from JSON, and `toml_document` a whole config from its values, as a
tomlkit document (which keeps the comments its writer adds).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.items import Table

from referee.printable import is_unsafe

# A setting (or a commented-out one, or a table header) followed by a comment, two spaces or more
# apart; or a comment alone that continues the one above it.
_COMMENTED = re.compile(r"^(?P<code>\S.*?)\s{2,}(?P<comment>#.*)$")
_CONTINUED = re.compile(r"^\s+(?P<comment>#.*)$")
MAX_COMMENT_COLUMN = 40  # a setting longer than this keeps its comment two spaces after it


def align_comments(text: str) -> str:
    """`text` with every comment after a setting starting in the same column: the one after the
    longest such setting (up to `MAX_COMMENT_COLUMN`)."""
    lines = text.split("\n")
    found = [_COMMENTED.match(line) for line in lines]
    widths = [len(m["code"]) + 2 for m in found if m and len(m["code"]) + 2 <= MAX_COMMENT_COLUMN]
    column = max(widths, default=0)
    out = []
    for line, match in zip(lines, found, strict=True):
        if match is not None:
            out.append(f"{match['code']:<{column - 2}}  {match['comment']}")
        elif (alone := _CONTINUED.match(line)) is not None:
            out.append(" " * column + alone["comment"])
        else:
            out.append(line)
    return "\n".join(out)


def toml_string(text: str) -> str:
    """`text` as a TOML basic string that reads back as `text`, on one line: quotes and
    backslashes escaped, and every control, format and separator character (those `printable`
    escapes: ESC, DEL, C1, bidi overrides, line separators) as a `\\uXXXX` escape, so that what
    a submission named (a folder, a run.txt) neither breaks the file nor acts on a terminal that
    shows it. A lone surrogate, which no TOML string can hold, becomes U+FFFD."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif is_unsafe(char):
            code = ord(char)
            if 0xD800 <= code <= 0xDFFF:
                code = 0xFFFD
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def toml_value(value: Any) -> str:
    """A value from JSON (an option given as KEY=VALUE, a setting of a config) in TOML, on one
    line; ValueError for what TOML cannot hold (null, infinities)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} cannot be written in a config")
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items())
        return "{" + inner + "}"
    raise ValueError(f"{json.dumps(value)} cannot be written in a config")


Loc = tuple[str | int, ...]


def toml_text(
    values: Mapping[str, Any],
    header: Sequence[str] = (),
    comments: Mapping[Loc, str] | None = None,
) -> str:
    """`values` (JSON's types) as a TOML file, in their order, after the comment lines of
    `header`: a mapping as a table, a list of mappings as an array of tables, any other value
    as `toml_value` writes it (ValueError for what TOML cannot hold), each value with its
    comment in `comments` (by its place: `("players", 0, "trusted")`) beside it. Written with
    tomlkit, as `toml_document` is, which a writer may edit further."""
    return tomlkit.dumps(toml_document(values, header, comments))


def toml_document(
    values: Mapping[str, Any],
    header: Sequence[str] = (),
    comments: Mapping[Loc, str] | None = None,
) -> tomlkit.TOMLDocument:
    """`toml_text`'s document."""
    document = tomlkit.document()
    for line in header:
        document.add(tomlkit.comment(line))
    if header:
        document.add(tomlkit.nl())
    _fill(document, values, (), comments or {})
    return document


def _fill(
    container: Container | Table, values: Mapping[str, Any], at: Loc, comments: Mapping[Loc, str]
) -> None:
    for key, value in values.items():
        if isinstance(value, Mapping):
            table = tomlkit.table()
            _fill(table, value, (*at, key), comments)
            container.append(key, table)
        elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            tables = tomlkit.aot()
            for index, entry in enumerate(value):
                table = tomlkit.table()
                _fill(table, entry, (*at, key, index), comments)
                tables.append(table)
            container.append(key, tables)
        else:
            item = tomlkit.value(toml_value(value))
            if (comment := comments.get((*at, key))) is not None:
                item.comment(comment)
            container.append(key, item)
