"""Keyset paging: a long list (games, the audit log) is read a page at a time from a cursor, the
last id shown, never with OFFSET, so that the thousandth page costs what the first does and a
row added meanwhile neither repeats nor skips one.

A page asks for one row more than it shows: that row's presence says there is a next page,
whose cursor is the last id shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from referee.web.archive import small_number

T = TypeVar("T")
PAGE_SIZE = 25
LARGEST_ID = 2**63 - 1  # SQLite's largest id


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next_before: int | None  # the cursor of the next (older) page; None: this is the last


def page_of(rows: Sequence[T], size: int, key: Callable[[T], int]) -> Page[T]:
    """A page from up to `size + 1` rows read newest first."""
    items = list(rows[:size])
    more = len(rows) > size and bool(items)
    return Page(items, key(items[-1]) if more else None)


def cursor(text: str | None) -> int | None:
    """A `before` cursor from a query string: None when absent; ValueError when it is not a
    plain positive number of ASCII digits (the page answers 400)."""
    if text is None:
        return None
    value = small_number(text, LARGEST_ID)
    if not value:
        raise ValueError(f"not a page cursor: {text[:40]!r}")
    return value
