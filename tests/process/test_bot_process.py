"""Bot processes with real tiny script bots: every fault gets its exact verdict, nothing is left."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import trio

from protocols.base import Reason
from referee.bot import BotProcess, BotStartError, open_bot
from referee.exchange import BotFault
from tests.scriptbots import alive, process_group_members, script_bot

GRACE = 0.2


class Harness:
    def __init__(self, tmp_path: Path) -> None:
        self.dir = tmp_path
        self.pid_file = tmp_path / "pids"
        self.pgids: list[int] = []
        self.idle_faults: list[BotProcess] = []

    def command(self, body: str, name: str = "bot") -> str:
        return script_bot(self.dir, name, body)

    def open(self, command: str, **kwargs: object):  # type: ignore[no-untyped-def]
        return open_bot(
            command,
            env={"BOT_PID_FILE": str(self.pid_file)},
            exit_grace=GRACE,
            on_fault=self.idle_faults.append,
            **kwargs,  # type: ignore[arg-type]
        )

    def pids(self) -> list[int]:
        if not self.pid_file.exists():
            return []
        return [int(x) for x in self.pid_file.read_text().split()]

    def assert_nothing_left(self) -> None:
        for pid in self.pids():
            assert not alive(pid), f"bot process {pid} is still running"
        for pgid in self.pgids:
            assert process_group_members(pgid) == []


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return Harness(tmp_path)


def deadline(seconds: float) -> float:
    return trio.current_time() + seconds


async def expect_fault(bot: BotProcess, line: str | None, seconds: float) -> BotFault:
    with pytest.raises(BotFault) as info:
        await bot.ask(line, deadline(seconds))
    return info.value


async def test_echo_bot_answers_and_exits_cleanly(harness: Harness) -> None:
    cmd = harness.command("""
        while (line := hear()) != "END":
            say("echo " + line)
    """)
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        assert await bot.ask("blue", deadline(10)) == "echo blue"
        assert await bot.ask("h1 d1 r0", deadline(10)) == "echo h1 d1 r0"
        assert await bot.notify("END", 1)
    assert bot.exit is not None
    assert bot.exit.returncode == 0 and not bot.exit.killed_by_referee
    harness.assert_nothing_left()


async def test_crash_at_start_is_reported_long_before_the_timeout(harness: Harness) -> None:
    cmd = harness.command("sys.exit(3)")
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        start = trio.current_time()
        fault = await expect_fault(bot, "blue", 30)
        assert trio.current_time() - start < 10
    assert fault.reason is Reason.CRASH
    assert "exited with code 3" in fault.detail
    harness.assert_nothing_left()


async def test_crash_mid_game_reports_the_signal(harness: Harness) -> None:
    cmd = harness.command("""
        hear(); say("h1 d1 r0")
        hear(); os.kill(os.getpid(), signal.SIGSEGV)
    """)
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        assert await bot.ask("blue", deadline(10)) == "h1 d1 r0"
        fault = await expect_fault(bot, "h2 a1 r0", 10)
    assert fault.reason is Reason.CRASH
    assert "killed by SIGSEGV" in fault.detail
    harness.assert_nothing_left()


async def test_silence_is_a_timeout_and_the_bot_is_killed(harness: Harness) -> None:
    cmd = harness.command("hear(); time.sleep(600)")
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        fault = await expect_fault(bot, "blue", 0.5)
    assert fault.reason is Reason.TIMEOUT
    assert bot.exit is not None and bot.exit.killed_by_referee
    harness.assert_nothing_left()


async def test_late_reply_is_never_taken_as_the_next_move(harness: Harness) -> None:
    cmd = harness.command("""
        hear(); time.sleep(0.6); say("h1 d1 r0")
        hear(); say("h1 d2 r0")
    """)
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        assert (await expect_fault(bot, "blue", 0.2)).reason is Reason.TIMEOUT
        await trio.sleep(1.0)  # the late line arrives while nobody asked
        fault = await expect_fault(bot, "h2 a1 r0", 5)
    assert fault.reason is Reason.OUT_OF_TURN
    assert fault.line == "h1 d1 r0"
    harness.assert_nothing_left()


async def test_output_out_of_turn_is_reported_at_once(harness: Harness) -> None:
    cmd = harness.command("""
        hear(); say("h2 a1 r0"); time.sleep(600)
    """)
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        await bot.send_line("orange")
        with trio.fail_after(10):
            while not harness.idle_faults:
                await trio.sleep(0.01)
        assert harness.idle_faults == [bot]
        assert bot.fault is not None and bot.fault.reason is Reason.OUT_OF_TURN
        assert bot.fault.line == "h2 a1 r0"
    harness.assert_nothing_left()


async def test_a_line_written_before_the_ask_is_out_of_turn_however_close(
    harness: Harness, tmp_path: Path
) -> None:
    # The bot writes its line as soon as it starts. The referee's loop is held (a blocking
    # sleep, no checkpoint) until the line is surely in the pipe, then asks at once: the reader
    # sees the line only after the ask began, but it was written before, so it is out of turn.
    ready = tmp_path / "written"
    cmd = harness.command(f"""
        say("h1 d1 r0"); open({str(ready)!r}, "w").close(); time.sleep(600)
    """)
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        with trio.fail_after(10):
            while not ready.exists():
                time.sleep(0.01)  # no checkpoint: the reader task cannot run meanwhile
        with pytest.raises(BotFault) as caught:
            await bot.ask("blue", deadline(10))
        assert caught.value.reason is Reason.OUT_OF_TURN
        assert caught.value.line == "h1 d1 r0"
    harness.assert_nothing_left()


async def test_two_lines_in_one_turn_is_out_of_turn(harness: Harness) -> None:
    cmd = harness.command("""
        hear(); say("h1 d1 r0"); say("h1 d2 r0"); time.sleep(600)
    """)
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        assert await bot.ask("blue", deadline(10)) == "h1 d1 r0"
        with trio.fail_after(10):
            while bot.fault is None:
                await trio.sleep(0.01)
        assert bot.fault.reason is Reason.OUT_OF_TURN
    harness.assert_nothing_left()


async def test_ten_megabyte_line_without_newline(harness: Harness) -> None:
    cmd = harness.command("""
        hear(); sys.stdout.write("x" * 10_000_000); sys.stdout.flush(); time.sleep(600)
    """)
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        fault = await expect_fault(bot, "blue", 10)
    assert fault.reason is Reason.LINE_TOO_LONG
    assert "4096" in fault.detail
    harness.assert_nothing_left()


async def test_invalid_utf8(harness: Harness) -> None:
    cmd = harness.command("""
        hear(); sys.stdout.buffer.write(b"h1 \\xff\\xfe r0\\n"); sys.stdout.flush(); time.sleep(600)
    """)
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        fault = await expect_fault(bot, "blue", 10)
    assert fault.reason is Reason.BAD_ENCODING
    assert fault.line == "h1 \\xff\\xfe r0"
    harness.assert_nothing_left()


async def test_closed_stdout_while_running(harness: Harness) -> None:
    cmd = harness.command("""
        hear(); os.close(1); time.sleep(600)
    """)
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        fault = await expect_fault(bot, "blue", 10)
    assert fault.reason is Reason.CRASH
    assert "closed its output but is still running" in fault.detail
    assert bot.exit is not None and bot.exit.killed_by_referee
    harness.assert_nothing_left()


async def test_bot_that_ignores_sigterm_and_end_is_killed(harness: Harness) -> None:
    cmd = harness.command("""
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        hear(); say("h1 d1 r0")
        while True:
            time.sleep(1)
    """)
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        assert await bot.ask("blue", deadline(10)) == "h1 d1 r0"
        await bot.notify("END", 1)
    assert bot.exit is not None and bot.exit.killed_by_referee
    assert bot.exit.returncode == -9
    harness.assert_nothing_left()


async def test_forked_grandchild_holding_the_pipe_is_killed(harness: Harness) -> None:
    cmd = harness.command("""
        hear()
        if os.fork() == 0:
            note_pid()
            time.sleep(600)  # keeps stdout open
        else:
            time.sleep(0.2)
            os._exit(0)
    """)
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        fault = await expect_fault(bot, "blue", 1.0)
    # The child still holds stdout, but the bot's supervisor ends the whole tree when the bot
    # itself exits: the output ends, and the verdict says the bot exited.
    assert fault.reason is Reason.CRASH
    assert fault.detail == "closed its output: exited with code 0"
    assert len(harness.pids()) == 2
    harness.assert_nothing_left()


async def test_a_megabyte_of_stderr_never_blocks_the_bot(harness: Harness) -> None:
    cmd = harness.command("""
        hear()
        for _ in range(1024):
            sys.stderr.write("e" * 1023 + "\\n")
        sys.stderr.write("last words\\n"); sys.stderr.flush()
        say("h1 d1 r0")
        hear()
    """)
    async with harness.open(cmd, stderr_tail_bytes=4096) as bot:
        harness.pgids.append(bot.pid)
        assert await bot.ask("blue", deadline(10)) == "h1 d1 r0"
        await bot.notify("END", 1)
    assert bot.exit is not None
    assert bot.exit.stderr_bytes == 1024 * 1024 + len("last words\n")
    assert len(bot.exit.stderr_tail) == 4096
    assert bot.exit.stderr_tail.endswith("last words\n")
    harness.assert_nothing_left()


async def test_command_not_found_is_a_start_error(harness: Harness) -> None:
    with pytest.raises(BotStartError) as info:
        async with harness.open("/nonexistent/bot --flag"):
            pass  # pragma: no cover
    assert info.value.reason is Reason.CRASH
    assert "/nonexistent/bot" in info.value.detail


async def test_unparseable_command_is_a_start_error(harness: Harness) -> None:
    with pytest.raises(BotStartError, match="cannot parse command"):
        async with harness.open('python "unterminated'):
            pass  # pragma: no cover


async def test_cancellation_kills_the_bot_without_waiting(harness: Harness) -> None:
    cmd = harness.command("hear(); time.sleep(600)")
    with trio.move_on_after(0.5):
        async with harness.open(cmd) as bot:
            harness.pgids.append(bot.pid)
            await bot.ask("blue", deadline(60))
    assert bot.exit is not None and bot.exit.killed_by_referee
    harness.assert_nothing_left()


async def test_bot_that_never_reads_cannot_block_the_referee(harness: Harness) -> None:
    cmd = harness.command("time.sleep(600)")
    async with harness.open(cmd) as bot:
        harness.pgids.append(bot.pid)
        fault = await expect_fault(bot, "x" * 1_000_000, 0.5)
        assert fault.reason is Reason.TIMEOUT
    harness.assert_nothing_left()
