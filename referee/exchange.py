"""One bot's side of the conversation: asked, answered, or writing out of turn (h11's shape).

An `Exchange` is fed the bytes of a bot's output as they come and told when the referee asks
the bot something; it returns what each complete line is: the answer, or a fault. It does no
I/O and reads no clock: the real bot process (referee/bot.py) and the in-memory player of the
match tests drive the same object, so they cannot judge a line differently.

The rules: a line is the answer only while the bot is asked and has not answered yet, and only
if the bot completed it after it was asked. What the bot had written when it was asked is what
was fed so far plus what was still unread in the pipe (`ask(unread)`), so a line that raced the
ask is out of turn however soon the ask followed. Any other line is output out of turn: the
first few are kept (`unasked`, for the record), and the first fault of any kind is kept until
the match judges it. Once the game is over (`close`), lines are kept and never judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from protocols.base import Reason
from protocols.framing import (
    BadEncoding,
    EndOfInput,
    FramingEvent,
    Line,
    LineFramer,
    LineTooLong,
)

# Lines a bot wrote when it was not asked, kept for the record (after a game-ending move they
# are trailing output, never judged): at most this many.
UNASKED_KEPT = 20


class BotFault(Exception):
    """Something a bot did that loses it the game."""

    def __init__(self, reason: Reason, detail: str, line: str | None = None) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.line = line


class Answer(NamedTuple):
    """The bot's answer to what it was asked (a tuple: one is made on every move)."""

    text: str


@dataclass(frozen=True, slots=True)
class Closed:
    """The bot closed its output (`what` says how); whoever runs it explains why (its exit
    code, a limit it hit) and reports the fault with `Exchange.found`."""

    what: str


Heard = Answer | BotFault | Closed


class PlayerEvents(Protocol):
    """Who a player reports to (the match): its answers, and its faults the moment they are
    found. A fault found right after an answer, in the same read, is already in the player's
    `fault` when `answered` is called (a second line in the same turn)."""

    async def answered(self, player: Any, line: str) -> None: ...

    def faulted(self, player: Any) -> None: ...


class Exchange:
    """The ask/answer/out-of-turn state of one bot; see the module docstring."""

    def __init__(self, max_line_bytes: int) -> None:
        self._framer = LineFramer(max_line_bytes)
        self.asked = False
        self._asked_from = 0  # stream offset of the bot's output when it was last asked
        self.answers = 0  # answers taken so far
        self.fault: BotFault | None = None
        self.unasked: list[str] = []
        self.closing = False

    @property
    def ended(self) -> bool:
        """Whether the output has ended (closed, or broken off by a framing error)."""
        return self._framer.closed

    def ask(self, unread: int = 0) -> None:
        """The referee asks the bot now; `unread` bytes of its output wait unread in the pipe
        (written before the ask, so no line ending among them can be the answer)."""
        self.asked = True
        self._asked_from = self._framer.fed + unread

    def stop_waiting(self) -> None:
        """The referee gave up waiting for the answer (its deadline passed): a line from now is
        out of turn, never the answer to a later question."""
        self.asked = False

    def feed(self, data: bytes | bytearray) -> list[Heard]:
        """Bytes of the bot's output, as read; what the lines they complete are."""
        if (text := self.answer(data)) is not None:
            return [Answer(text)]
        return self.lines_of(data)

    def lines_of(self, data: bytes | bytearray) -> list[Heard]:
        """`feed` without its shortcut for the answer: each line of `data` framed and judged
        one by one (what `feed` does with any read that is not exactly the answer)."""
        return self._judge(self._framer.feed(data) if data else self._framer.feed_eof())

    def answer(self, data: bytes | bytearray) -> str | None:
        """The path of every move, without events: if `data` is exactly the answer (one whole
        line, the bot asked, completed after it was asked), its text, taken as the answer, as
        `feed` would take it; otherwise None, and nothing has changed (`feed` judges `data`)."""
        if not self.asked or self._framer.fed + len(data) <= self._asked_from:
            return None
        text = self._framer.whole_line(data)
        if text is not None:
            self.asked = False
            self.answers += 1
        return text

    def feed_eof(self) -> list[Heard]:
        """The bot's output ended (or cannot be read any more)."""
        return self._judge(self._framer.feed_eof())

    def found(self, fault: BotFault) -> bool:
        """A fault found outside the output's lines (a closed output explained, a write to a
        bot that stopped reading): kept if it is the first and the game is on; whether it was."""
        if self.fault is not None or self.closing:
            return False
        self.fault = fault
        return True

    def close(self) -> None:
        """The game is over: what the bot writes from now is kept, never judged."""
        self.closing = True
        self.asked = False

    def _judge(self, events: list[FramingEvent]) -> list[Heard]:
        heard: list[Heard] = []
        for event in events:
            item = self._line(event) if isinstance(event, Line) else self._trouble(event)
            if item is not None:
                heard.append(item)
        return heard

    def _line(self, line: Line) -> Heard | None:
        if self.asked and line.end > self._asked_from:
            self.asked = False
            self.answers += 1
            return Answer(line.text)
        # Kept even while closing: what a bot says after the game's end goes in the record.
        if len(self.unasked) < UNASKED_KEPT:
            self.unasked.append(line.text)
        fault = BotFault(Reason.OUT_OF_TURN, "wrote a line when it was not its turn", line.text)
        return fault if self.found(fault) else None

    def _trouble(self, event: LineTooLong | BadEncoding | EndOfInput) -> Heard | None:
        if self.closing:
            return None
        if isinstance(event, LineTooLong):
            fault = BotFault(Reason.LINE_TOO_LONG, f"wrote a line longer than {event.limit} bytes")
        elif isinstance(event, BadEncoding):
            fault = BotFault(
                Reason.BAD_ENCODING,
                f"wrote bytes that are not UTF-8 ({event.error})",
                event.raw.decode("utf-8", "backslashreplace"),
            )
        else:
            what = "closed its output"
            if event.partial:
                what += f" with an unterminated line of {event.partial} bytes (missing newline?)"
            return Closed(what)
        return fault if self.found(fault) else None
