"""Line framing, fed whole, byte by byte and in awkward splits."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from protocols.framing import (
    BadEncoding,
    EndOfInput,
    Line,
    LineFramer,
    LineTooLong,
)


def feed_in_chunks(data: bytes, cuts: list[int], limit: int = 4096) -> list[object]:
    framer = LineFramer(limit)
    events: list[object] = []
    positions = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    for a, b in itertools.pairwise(positions):
        events += framer.feed(data[a:b])
    events += framer.feed_eof()
    return events


def test_lines_crlf_and_eof() -> None:
    framer = LineFramer()
    assert framer.feed(b"h1 d1 r0\nd1 d2 e3\r\nab") == [Line("h1 d1 r0"), Line("d1 d2 e3")]
    assert framer.feed(b"c\n") == [Line("abc")]
    assert framer.feed_eof() == [EndOfInput(0)]
    assert framer.closed
    assert framer.feed(b"more\n") == []


def test_unterminated_last_line_is_reported_at_eof() -> None:
    framer = LineFramer()
    assert framer.feed(b"h1 d1") == []
    assert framer.feed_eof() == [EndOfInput(5)]


def test_byte_by_byte() -> None:
    framer = LineFramer()
    events = []
    for byte in b"blue\r\nh1 a1 r0\n\n":
        events += framer.feed(bytes([byte]))
    assert events == [Line("blue"), Line("h1 a1 r0"), Line("")]


def test_line_at_the_limit_is_accepted_with_or_without_cr() -> None:
    for terminator in (b"\n", b"\r\n"):
        framer = LineFramer(8)
        assert framer.feed(b"x" * 8 + terminator) == [Line("x" * 8)]


def test_partial_line_fails_as_soon_as_it_passes_the_limit() -> None:
    framer = LineFramer(8)
    assert framer.feed(b"x" * 8) == []
    assert framer.feed(b"\r") == []  # could still be "\r\n"
    events = framer.feed(b"x")
    assert events == [LineTooLong(8, 10)]
    assert framer.closed
    assert framer.feed(b"\n") == []


def test_huge_chunk_without_newline_keeps_memory_bounded() -> None:
    framer = LineFramer(4096)
    events = framer.feed(b"y" * 10_000_000)
    assert len(events) == 1 and isinstance(events[0], LineTooLong)
    assert len(framer._buffer) == 0


def test_complete_long_line_in_one_chunk() -> None:
    framer = LineFramer(4)
    events = framer.feed(b"ok\n123456789\nnever\n")
    assert events[0] == Line("ok")
    assert isinstance(events[1], LineTooLong)
    assert len(events) == 2


def test_invalid_utf8_is_an_error_and_ends_the_stream() -> None:
    framer = LineFramer()
    events = framer.feed(b"h1 d1 r0\n\xff\xfe\nh1 a1 r0\n")
    assert events[0] == Line("h1 d1 r0")
    assert isinstance(events[1], BadEncoding) and events[1].raw == b"\xff\xfe"
    assert len(events) == 2


def test_utf8_split_across_chunks_is_fine() -> None:
    data = "é ü\n".encode()
    framer = LineFramer()
    assert framer.feed(data[:1]) == []
    assert framer.feed(data[1:]) == [Line("é ü")]


@given(
    lines=st.lists(st.text(alphabet="abcdefgh 0123456789\t", max_size=20), max_size=20),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=30),
    crlf=st.booleans(),
)
def test_any_split_gives_the_same_lines(lines: list[str], cuts: list[int], crlf: bool) -> None:
    terminator = "\r\n" if crlf else "\n"
    data = "".join(line + terminator for line in lines).encode()
    assert feed_in_chunks(data, cuts) == [*(Line(x) for x in lines), EndOfInput(0)]


@given(
    size=st.integers(min_value=0, max_value=40),
    cuts=st.lists(st.integers(min_value=0, max_value=100), max_size=10),
)
def test_limit_is_exact_for_any_split(size: int, cuts: list[int]) -> None:
    events = feed_in_chunks(b"z" * size + b"\n", cuts, limit=16)
    if size <= 16:
        assert events == [Line("z" * size), EndOfInput(0)]
    else:
        assert len(events) == 1 and isinstance(events[0], LineTooLong)


def test_each_line_knows_where_it_ends_in_the_stream() -> None:
    framer = LineFramer(16)
    first = framer.feed(b"ab\ncd")
    second = framer.feed(b"\r\n\nxyz")
    assert [(e.text, e.end) for e in [*first, *second] if isinstance(e, Line)] == [
        ("ab", 3),
        ("cd", 7),
        ("", 8),
    ]
    assert framer.fed == 11
