"""One bot's ask/answer/out-of-turn state, driven by a scripted transport: the bytes a bot
writes, the referee's reads of them and its asks, in an order each test writes out. No process,
no event loop (as python-chess's engine protocol is tested with a MockTransport)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from protocols.base import Reason
from referee.exchange import UNASKED_KEPT, Answer, BotFault, Closed, Exchange, Heard


class Transport:
    """A bot's output pipe, scripted: `write` is the bot writing, `read` the referee's reader
    taking what is in the pipe (or only `size` bytes of it), `ask` the referee asking."""

    def __init__(self, max_line_bytes: int = 64) -> None:
        self.exchange = Exchange(max_line_bytes)
        self.written = b""
        self.read_up_to = 0

    def write(self, data: str | bytes) -> None:
        self.written += data.encode() if isinstance(data, str) else data

    def read(self, size: int | None = None) -> list[Heard]:
        end = len(self.written) if size is None else self.read_up_to + size
        chunk, self.read_up_to = self.written[self.read_up_to : end], end
        return self.exchange.feed(chunk)

    def ask(self) -> None:
        self.exchange.ask(unread=len(self.written) - self.read_up_to)


def faults(heard: list[Heard]) -> list[tuple[Reason, str | None]]:
    return [(h.reason, h.line) for h in heard if isinstance(h, BotFault)]


def test_an_answer_written_after_the_ask_is_the_answer() -> None:
    bot = Transport()
    bot.ask()
    bot.write("h1 d1 r0\n")
    assert bot.read() == [Answer("h1 d1 r0")]
    assert not bot.exchange.asked and bot.exchange.answers == 1
    assert bot.exchange.fault is None and bot.exchange.unasked == []


def test_a_line_written_before_the_ask_is_out_of_turn_though_read_after_it() -> None:
    bot = Transport()
    bot.write("h1 d1 r0\n")  # in the pipe, unread, when the referee asks
    bot.ask()
    heard = bot.read()
    assert faults(heard) == [(Reason.OUT_OF_TURN, "h1 d1 r0")]
    assert bot.exchange.fault is heard[0]
    assert bot.exchange.unasked == ["h1 d1 r0"]
    # The bot is still asked: a line it writes now would be its answer (the match has judged
    # the fault by then).
    bot.write("h1 d2 r0\n")
    assert bot.read() == [Answer("h1 d2 r0")]


def test_two_lines_in_one_turn_are_the_answer_then_a_fault() -> None:
    bot = Transport()
    bot.ask()
    bot.write("h1 d1 r0\nand another thing\n")
    heard = bot.read()
    assert heard[0] == Answer("h1 d1 r0")
    assert faults(heard[1:]) == [(Reason.OUT_OF_TURN, "and another thing")]
    assert bot.exchange.unasked == ["and another thing"]


def test_a_line_racing_the_ask_is_the_answer_if_it_ends_after_the_ask() -> None:
    # The bot had written half of its line when the referee asked: the line ends after the
    # ask, so it is the answer, however the reads split it.
    bot = Transport()
    bot.write("h1 d1")
    assert bot.read(3) == []
    bot.ask()
    bot.write(" r0\n")
    assert bot.read(2) == []
    assert bot.read() == [Answer("h1 d1 r0")]
    # A line that ended just before the ask is out of turn, even if read in the same chunk as
    # one written after it: only the later one is the answer.
    late = Transport()
    late.write("old\n")
    late.ask()
    late.write("h1 d1 r0\n")
    heard = late.read()
    assert faults(heard) == [(Reason.OUT_OF_TURN, "old")]
    assert heard[1] == Answer("h1 d1 r0")


def test_a_line_when_not_asked_is_out_of_turn_and_only_the_first_fault_is_kept() -> None:
    bot = Transport()
    bot.write("one\ntwo\n")
    heard = bot.read()
    assert faults(heard) == [(Reason.OUT_OF_TURN, "one")]  # the second is kept, not reported
    assert bot.exchange.fault is not None and bot.exchange.fault.line == "one"
    assert bot.exchange.unasked == ["one", "two"]
    assert not bot.exchange.found(BotFault(Reason.CRASH, "later"))


def test_once_the_referee_stops_waiting_a_late_answer_is_out_of_turn() -> None:
    bot = Transport()
    bot.ask()
    bot.exchange.stop_waiting()  # the deadline passed
    bot.write("h1 d1 r0\n")
    assert faults(bot.read()) == [(Reason.OUT_OF_TURN, "h1 d1 r0")]


def test_after_the_game_lines_are_kept_never_judged() -> None:
    bot = Transport()
    bot.ask()
    bot.exchange.close()
    bot.write("".join(f"line {n}\n" for n in range(UNASKED_KEPT + 5)) + "x" * 100 + "\n")
    assert bot.read() == []
    assert bot.exchange.fault is None
    assert bot.exchange.unasked == [f"line {n}" for n in range(UNASKED_KEPT)]
    assert not bot.exchange.found(BotFault(Reason.CRASH, "exited"))


def test_what_the_framing_rejects_is_a_fault_of_its_own() -> None:
    long = Transport(max_line_bytes=16)
    long.ask()
    long.write("x" * 40)
    assert faults(long.read()) == [(Reason.LINE_TOO_LONG, None)]
    assert long.exchange.ended
    bad = Transport()
    bad.ask()
    bad.write(b"h1 \xff\n")
    assert faults(bad.read()) == [(Reason.BAD_ENCODING, "h1 \\xff")]


def test_the_end_of_the_output_is_for_the_transport_to_explain() -> None:
    bot = Transport()
    bot.ask()
    bot.write("h1 d")
    bot.read()
    assert bot.exchange.feed_eof() == [
        Closed("closed its output with an unterminated line of 4 bytes (missing newline?)")
    ]
    assert bot.exchange.fault is None  # until the transport says why (its exit code)
    assert bot.exchange.found(BotFault(Reason.CRASH, "closed its output: exited with code 1"))
    assert bot.exchange.feed_eof() == []  # told once


# -- the shortcut for the answer --------------------------------------------------------------


# ("write", what the bot writes), or ("read" (all that is in the pipe) | "read3" (at most 3
# bytes of it) | "ask" | "stop" (the referee gives up waiting), b"").
Step = tuple[str, bytes]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(
                st.just("write"),
                st.sampled_from(
                    [
                        b"h1 d1 r0\n",
                        b"a\n",
                        b"x",
                        b"\r\n",
                        b"\n",
                        b"\xff\n",
                        b"y" * 70 + b"\n",
                        b"b\nc\n",
                    ]
                ),
            ),
            st.tuples(st.sampled_from(["read", "read3", "ask", "stop"]), st.just(b"")),
        ),
        max_size=30,
    )
)
def test_the_shortcut_hears_what_framing_each_line_hears(steps: list[Step]) -> None:
    """`feed` takes a read that is exactly the answer by a shortcut (`answer`, the path of
    every move); framing and judging each line (`lines_of`) must hear the same in any script
    of writes, reads, asks and give-ups, and leave the exchange in the same state."""
    fast, slow = Transport(), Transport()
    for action, data in steps:
        if action == "write":
            fast.write(data)
            slow.write(data)
        elif action == "ask":
            fast.ask()
            slow.ask()
        elif action == "stop":
            fast.exchange.stop_waiting()
            slow.exchange.stop_waiting()
        else:
            end = len(fast.written) if action == "read" else fast.read_up_to + 3
            chunk = fast.written[fast.read_up_to : end]
            fast.read_up_to = slow.read_up_to = min(end, len(fast.written))
            heard_fast, heard_slow = fast.exchange.feed(chunk), slow.exchange.lines_of(chunk)
            assert [_shown(h) for h in heard_fast] == [_shown(h) for h in heard_slow]
        assert _state(fast.exchange) == _state(slow.exchange)


def _shown(heard: Heard) -> object:
    return (heard.reason, heard.detail, heard.line) if isinstance(heard, BotFault) else heard


def _state(exchange: Exchange) -> object:
    fault = exchange.fault
    return (
        exchange.asked,
        exchange.answers,
        exchange.unasked,
        exchange.ended,
        None if fault is None else (fault.reason, fault.line),
    )


def test_the_shortcut_takes_only_a_whole_line_written_after_the_ask() -> None:
    bot = Transport()
    assert bot.exchange.answer(b"h1 d1 r0\n") is None  # not asked
    bot.ask()
    assert bot.exchange.answer(b"h1 d1") is None  # not a whole line
    assert bot.exchange.answer(b"a\nb\n") is None  # two lines
    assert bot.exchange.answer(b"\xff\n") is None  # not UTF-8: framing reports it
    assert bot.exchange.answers == 0 and bot.exchange.asked
    assert bot.exchange.answer(b"h1 d1 r0\r\n") == "h1 d1 r0"
    assert bot.exchange.answers == 1 and not bot.exchange.asked
