"""A bounded byte buffer that keeps only the most recent bytes (a bot's stderr tail)."""

from __future__ import annotations


class TailBuffer:
    """Keeps the last `limit` bytes appended and counts all of them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._data = bytearray()

    def append(self, chunk: bytes | bytearray) -> None:
        self.total += len(chunk)
        self._data += chunk[-self.limit :] if self.limit else b""
        excess = len(self._data) - self.limit
        if excess > 0:
            del self._data[:excess]

    @property
    def truncated(self) -> bool:
        return self.total > len(self._data)

    def text(self) -> str:
        """The tail as text; undecodable bytes shown as escapes, never an error."""
        return self._data.decode("utf-8", "backslashreplace")
