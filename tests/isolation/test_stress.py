"""Two hundred hostile games, four at a time as a tournament plays them: afterwards the referee
holds exactly the file descriptors and child processes it held before, and nothing of any bot is
left."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import trio

from referee.isolation.levels import IsolationSettings, choose
from tests.isolation.arena import Arena, bot_python

GAMES = 200
AT_ONCE = 4  # games played side by side (most of a game's time is spent waiting out a bot)
# Quick misbehaviours, each ending a game in well under a second.
HOSTILE = [
    "sys.exit(3)",
    "start(); hear(); os.kill(os.getpid(), signal.SIGSEGV)",
    'start(); hear(); sys.stdout.write(MOVES[0] + "\\n" + MOVES[1] + "\\n"); sys.stdout.flush()',
    'start(); hear(); sys.stdout.buffer.write(b"\\xff\\xfe\\n"); sys.stdout.flush()',
    'start(); hear(); sys.stdout.write("x" * 10_000_000); sys.stdout.flush()',
    "start(); hear(); os.close(1); time.sleep(600)",
    "start(); hear(); hog = bytearray(1 << 30)",
    'signal.signal(signal.SIGTERM, signal.SIG_IGN); start(); hear(); say("resign")',
    "start(); hear(); say(MOVES.pop(0)); hear(); say('h9 z9 r0')",
]
# Needs a level that follows a process out of its group.
ESCAPE = """
start(); hear()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.close(1)
        time.sleep(600)
    os._exit(0)
os._exit(5)
"""


def own_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def own_children() -> list[int]:
    found: list[int] = []
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as f:
            found += [int(pid) for pid in f.read().split()]
    return found


@pytest.fixture
def strongest() -> Iterator[Arena]:
    level = choose(IsolationSettings(level="auto")).name
    stage = Arena(level, bot_python(level))
    try:
        yield stage
    finally:
        stage.cleanup()


@pytest.mark.slow
async def test_two_hundred_hostile_games_leave_nothing_behind(strongest: Arena) -> None:
    arena = strongest
    kinds = HOSTILE + ([ESCAPE] if arena.level != "basic" else [])
    bots = [arena.hostile(body) for body in kinds]
    bots.append(("/no/such/program", arena.directory()))
    opponent = arena.opponent()
    settings = arena.settings(exit_grace=0.05)
    await arena.play(bots[0], opponent, settings)  # warm-up: lazily opened descriptors
    fds, children = own_fds(), own_children()
    reasons = set()
    numbers = iter(range(GAMES))

    async def play_some() -> None:
        for number in numbers:  # shared: each game is taken by one of the players below
            record = await arena.play(bots[number % len(bots)], opponent, settings)
            assert record.result is not None and not record.result.void, record.result
            reasons.add(record.result.reason)

    async with trio.open_nursery() as nursery:
        for _ in range(AT_ONCE):
            nursery.start_soon(play_some)
    assert own_fds() == fds
    assert own_children() == children == []
    assert len(reasons) >= 5  # the games really ended in different ways
    arena.assert_nothing_left()
