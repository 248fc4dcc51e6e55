"""A built-in bot given a game's default options starts without loading pydantic: validating
options is the only thing that needs it, and importing it cost a bot most of its start (about
150 ms of CPU against 70; scripts/bench_bot_start.py measures it). The referee tells a bot only
the options that differ from the defaults, so in most games no bot loads it at all."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from protocols import builtin_names

# Runs the bot's entry point as `python -m bots` does, then says on stderr which of the heavy
# libraries the process loaded.
PROBE = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: print('LOADED', sorted(m for m in ('pydantic', 'pydantic_core')"
    " if m in sys.modules), file=sys.stderr))\n"
    "sys.argv = ['bots', *sys.argv[1:]]\n"
    "runpy.run_module('bots', run_name='__main__', alter_sys=True)\n"
)
CASES = [(bot, game) for game in builtin_names() for bot in ("random", "greedy")]
CASES.append(("search --depth 1", "lasker-morris"))


def start(bot: str, game: str, *extra: str) -> tuple[str, list[str]]:
    """The bot's first move as blue, and the heavy modules it had loaded when it exited."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *bot.split(), "--game", game, "--seed", "3", *extra],
        input="blue\n", capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    loaded = [line for line in proc.stderr.splitlines() if line.startswith("LOADED ")]
    assert loaded, proc.stderr
    return proc.stdout.strip(), json.loads(loaded[-1].removeprefix("LOADED ").replace("'", '"'))


@pytest.mark.parametrize(("bot", "game"), CASES)
def test_a_bot_with_the_default_options_never_loads_pydantic(bot: str, game: str) -> None:
    move, loaded = start(bot, game)
    assert move, f"{bot} made no move in {game}"
    assert loaded == []


def test_a_bot_told_other_options_validates_them() -> None:
    move, loaded = start("random", "alak", "--options", '{"size": 9}')
    assert move in [chr(ord("a") + i) for i in range(9)]  # a point of the 9-point board
    assert "pydantic" in loaded
    proc = subprocess.run(
        [sys.executable, "-m", "bots", "random", "--game", "alak", "--options", '{"size": 99}'],
        input="blue\n", capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "size" in proc.stderr
