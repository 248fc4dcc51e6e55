"""Freezing the bot not on move holds on a busy machine: a bot that spins on its opponent's time
is frozen even when the machine is too busy to give it much CPU in any short window, and a bot
that blocks on its input is never frozen, however busy the machine. Judged by CPU time, never by
wall-clock thresholds."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from protocols.base import Reason, Side
from referee.bot import open_bot
from referee.isolation.levels import IsolationSettings, choose
from referee.isolation.ponder import DEFAULT_FREEZE_GRACE, PONDER_POLL
from tests.isolation.arena import Arena, bot_python, skip_unless_available
from tests.isolation.test_hostile import SPINNER, pondered

# Levels whose freezing differs: signals to the process tree, and the cgroup freezer.
LOADED_LEVELS = ["basic+root", "cgroup+root", "sandbox+users+cgroup"]
SLOWER_OPPONENT = """
colour = start()
while (line := hear()) not in ("END", ""):
    time.sleep(0.6)
    say(MOVES.pop(0))
"""


@pytest.fixture
def loaded_machine() -> Iterator[int]:
    """Twice as many spinning processes as the machine has cores, for the test's duration."""
    count = 2 * (os.cpu_count() or 1)
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield count
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


@pytest.fixture(params=LOADED_LEVELS)
def loaded_arena(request: pytest.FixtureRequest, loaded_machine: int) -> Iterator[Arena]:
    level: str = request.param
    skip_unless_available(level.removesuffix("+root"))
    stage = Arena(level, bot_python(level))
    try:
        yield stage
    finally:
        stage.cleanup()


@pytest.mark.parametrize("freeze", [True, False], ids=["frozen", "not-frozen"])
async def test_busy_loop_on_a_busy_machine(loaded_arena: Arena, freeze: bool) -> None:
    arena = loaded_arena
    settings = arena.settings(move_timeout=10.0, freeze=freeze)
    opponent = arena.opponent(body=SLOWER_OPPONENT)
    record = await arena.play(arena.hostile(SPINNER), opponent, settings)
    assert record.result is not None
    assert (record.result.winner, record.result.reason) == (Side.ORANGE, Reason.BAD_SYNTAX)
    times = pondered(record)
    assert len(times) == 3
    if freeze:
        # Frozen for each 0.6 s the opponent thought: only the grace's CPU, at most.
        assert max(times) < DEFAULT_FREEZE_GRACE + 0.1, times
    else:  # the control: the machine does give a spinning bot CPU over those 0.6 s
        assert sum(times) > 0.15, times
    arena.assert_nothing_left()


BLOCKING_BOT = "import sys\nfor line in sys.stdin:\n    print(line.strip(), flush=True)\n"


@pytest.mark.parametrize("level", ["basic+root", "cgroup+root"])
async def test_a_bot_blocked_on_its_input_is_never_frozen(
    loaded_machine: int, level: str, tmp_path: Path
) -> None:
    skip_unless_available(level.removesuffix("+root"))
    (tmp_path / "echo.py").write_text(BLOCKING_BOT)
    isolation = choose(IsolationSettings(level=level))
    command = f"{sys.executable} {tmp_path / 'echo.py'}"
    async with open_bot(command, cwd=tmp_path, isolation=isolation, freeze=True) as bot:
        freezer = bot.confinement.freezer
        assert freezer is not None
        for number in range(5):
            assert await bot.ask(f"m{number}", trio.current_time() + 60) == f"m{number}"
            await trio.sleep(DEFAULT_FREEZE_GRACE + 20 * PONDER_POLL)  # decided by then
            assert not freezer.frozen, f"frozen after answer {number} while blocked on input"


BOOKKEEPING_BOT = """\
import sys, time
for line in sys.stdin:
    print(line.strip(), flush=True)
    busy = time.process_time() + 0.02  # 20 ms of CPU after each answer, then it reads again
    while time.process_time() < busy:
        pass
"""


@pytest.mark.parametrize("level", ["basic+root", "cgroup+root"])
async def test_bookkeeping_after_an_answer_is_never_frozen_on_a_busy_machine(
    loaded_machine: int, level: str, tmp_path: Path
) -> None:
    # On a machine this busy, 20 ms of CPU take far longer than the grace in wall time: the
    # grace is CPU time, so the bot finishes them and blocks unfrozen.
    skip_unless_available(level.removesuffix("+root"))
    (tmp_path / "bot.py").write_text(BOOKKEEPING_BOT)
    isolation = choose(IsolationSettings(level=level))
    command = f"{sys.executable} {tmp_path / 'bot.py'}"
    async with open_bot(command, cwd=tmp_path, isolation=isolation, freeze=True) as bot:
        freezer = bot.confinement.freezer
        assert freezer is not None
        for number in range(5):
            assert await bot.ask(f"m{number}", trio.current_time() + 60) == f"m{number}"
            await trio.sleep(1.0)  # time enough, even here, for the 20 ms and the watch
            assert not freezer.frozen, f"frozen during its bookkeeping after answer {number}"
