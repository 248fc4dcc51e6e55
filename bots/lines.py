"""Reading the referee's lines, with the earliest moment each one can have arrived.

The referee starts a move's clock when it writes the line; the bot learns of it only when it
reads it. When the bot was waiting, the two moments coincide. When the line was already waiting
(the bot was still starting up or busy), it may have arrived at any time since the bot last saw
its input empty, so that moment is what the bot must count from. Reading the file descriptor
directly (not through Python's buffered text layer) is what makes "empty" observable.
"""

from __future__ import annotations

import os
import select
import time
from typing import TextIO


class LineReader:
    """Lines from a file descriptor, each with its earliest possible arrival time."""

    def __init__(self, fd: int, known_empty_at: float) -> None:
        self._fd = fd
        self._buffer = b""
        self._eof = False
        # The last moment the input was seen empty: no unread line can be older than this.
        self._known_empty_at = known_empty_at
        # (end offset in the buffer, arrival) of each chunk still (partly) in the buffer.
        self._chunks: list[tuple[int, float]] = []

    def mark_empty(self, when: float) -> None:
        """Note that nothing was sent before `when` (e.g. the moment our own move was written)."""
        if not self._buffer:
            self._known_empty_at = max(self._known_empty_at, when)

    def line_ready(self) -> bool:
        """Whether a whole line can be read without waiting."""
        if b"\n" in self._buffer or self._eof:
            return True
        ready, _, _ = select.select([self._fd], [], [], 0)
        if ready:
            self._fill()
        return b"\n" in self._buffer or self._eof

    def read_line(self) -> tuple[str | None, float]:
        """The next line without its newline (None at end of input) and when it arrived.

        A line is complete when the chunk holding its newline arrived, so that chunk's arrival
        is the line's.
        """
        while b"\n" not in self._buffer and not self._eof:
            self._fill()
        if not self._buffer:
            return None, time.monotonic()
        newline = self._buffer.find(b"\n")
        consumed = len(self._buffer) if newline < 0 else newline + 1  # a last unended line
        arrived = next(when for chunk_end, when in self._chunks if chunk_end >= consumed)
        line = self._buffer[:consumed].rstrip(b"\n")
        self._buffer = self._buffer[consumed:]
        self._chunks = [(e - consumed, w) for e, w in self._chunks if e - consumed > 0]
        return line.decode("utf-8", "replace"), arrived

    def _fill(self) -> None:
        ready, _, _ = select.select([self._fd], [], [], 0)
        if ready:
            arrived = self._known_empty_at  # it was already there: it may be that old
        else:
            self._known_empty_at = time.monotonic()
            select.select([self._fd], [], [])
            arrived = time.monotonic()  # we were waiting for it: it came just now
        chunk = os.read(self._fd, 65536)
        if not chunk:
            self._eof = True
            return
        self._buffer += chunk
        self._chunks.append((len(self._buffer), arrived))


class TextLineReader:
    """The same interface over a text stream (tests, pipes without a descriptor)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def mark_empty(self, when: float) -> None:
        """Text streams cannot be polled; arrival is always taken to be the read itself."""

    def line_ready(self) -> bool:
        """A text stream cannot be polled: what a test gives it is all there."""
        return True

    def read_line(self) -> tuple[str | None, float]:
        line = self._stream.readline()
        now = time.monotonic()
        if not line:
            return None, now
        return line.rstrip("\n"), now


def reader_for(stream: TextIO, process_started: float) -> LineReader | TextLineReader:
    """A descriptor reader for real standard input, a text reader for anything else."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return TextLineReader(stream)
    return LineReader(fd, process_started)
