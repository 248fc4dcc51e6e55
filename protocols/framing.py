"""Line framing for the bot protocol: bytes in, lines out, with hard limits and no I/O.

A `LineFramer` is fed whatever chunks the pipe delivers and returns events: complete lines, or
one terminal error. Lines end with "\\n"; a "\\r" before it is dropped. A line's length (without
its terminator) is limited; a partial line that passes the limit is an error at once, so a bot
that writes 100 MB without a newline costs the referee at most one line of memory. Lines must be
UTF-8 (which includes ASCII). After an error, or after the end of input, the framer ignores input.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_MAX_LINE_BYTES = 4096


@dataclass(frozen=True, slots=True)
class Line:
    """One complete line, decoded, without its terminator; `end` is the stream offset just
    after its newline (how many bytes the writer had written once the line was complete)."""

    text: str
    end: int = field(default=0, compare=False)  # where it is, not what it is


@dataclass(frozen=True, slots=True)
class LineTooLong:
    """A line (complete or still partial) longer than the limit."""

    limit: int
    seen: int  # bytes of the line seen when the limit was passed


@dataclass(frozen=True, slots=True)
class BadEncoding:
    """A complete line whose bytes are not valid UTF-8."""

    raw: bytes  # the offending line (at most the line limit), for the record
    error: str


@dataclass(frozen=True, slots=True)
class EndOfInput:
    """The writer closed its end; `partial` is the number of bytes of an unterminated last line."""

    partial: int


FramingEvent = Line | LineTooLong | BadEncoding | EndOfInput


class LineFramer:
    """Turns a byte stream into `FramingEvent`s; see the module docstring."""

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be at least 1")
        self.max_line_bytes = max_line_bytes
        self._buffer = bytearray()
        self._closed = False
        self.fed = 0  # bytes fed so far: the stream offset of the next byte

    @property
    def closed(self) -> bool:
        """True after an error or the end of input: no further events will come."""
        return self._closed

    def feed(self, data: bytes | bytearray) -> list[FramingEvent]:
        """Add bytes from the stream; return the events they complete, in order."""
        if self._closed:
            return []
        if (text := self.whole_line(data)) is not None:
            return [Line(text, self.fed)]  # the common case: one whole line, in the limit
        events: list[FramingEvent] = []
        start = 0
        base = self.fed
        self.fed += len(data)
        while True:
            newline = data.find(b"\n", start)
            if newline < 0:
                break
            self._append(data, start, newline)
            start = newline + 1
            event = self._complete_line(base + start)
            events.append(event)
            if self._closed:
                return events
        self._append(data, start, len(data))
        if self._partial_too_long():
            events.append(self._fail(LineTooLong(self.max_line_bytes, len(self._buffer))))
        return events

    def whole_line(self, data: bytes | bytearray) -> str | None:
        """The common case, without the buffer or events: if `data` is one whole line within
        the limit, valid UTF-8, and nothing is buffered, its text (the framer is then past it,
        as `feed` would be); otherwise None, and nothing has changed (`feed` judges `data`)."""
        if self._buffer or self._closed or len(data) - 1 > self.max_line_bytes:
            return None
        if not data or data.find(b"\n") != len(data) - 1:
            return None
        try:
            text = (data[:-2] if data.endswith(b"\r\n") else data[:-1]).decode("utf-8")
        except UnicodeDecodeError:
            return None
        self.fed += len(data)
        return text

    def feed_eof(self) -> list[FramingEvent]:
        """The stream ended: report it once, with the size of any unterminated line."""
        if self._closed:
            return []
        return [self._fail(EndOfInput(len(self._buffer)))]

    def _append(self, data: bytes | bytearray, start: int, end: int) -> None:
        # Never keep more than the limit plus a "\r" and one byte to detect the overflow.
        room = self.max_line_bytes + 2 - len(self._buffer)
        self._buffer += data[start : min(end, start + max(room, 0))]

    def _complete_line(self, end: int) -> FramingEvent:
        raw = bytes(self._buffer)
        self._buffer.clear()
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if len(raw) > self.max_line_bytes:
            return self._fail(LineTooLong(self.max_line_bytes, len(raw)))
        try:
            return Line(raw.decode("utf-8"), end)
        except UnicodeDecodeError as exc:
            return self._fail(BadEncoding(raw, str(exc)))

    def _partial_too_long(self) -> bool:
        # A partial line may hold one byte more than the limit if that byte is a "\r" that the
        # coming "\n" will drop.
        size = len(self._buffer)
        limit = self.max_line_bytes
        return size > limit + 1 or (size == limit + 1 and self._buffer[-1:] != b"\r")

    def _fail(self, event: FramingEvent) -> FramingEvent:
        self._closed = True
        self._buffer.clear()
        return event
